import { ErrorName } from '../domain/error-catalogue';
import { heldIntentWaits, reasonCodeOfError, type ReasonCode } from '../domain/reason-codes';
import { countWaiting } from '../store/waiting-intents';
import { lanesOf } from '../operations/wallet-lanes';
import type { Hex } from '../domain/transfer';
import type { WalletRole } from '../domain/custody';
import { listTokens } from '../store/assets';
import { openTopUps } from '../store/top-ups';
import { registeredWallets, retiredWallets } from '../store/wallet-pools';
import type { ServiceDependencies } from './dependencies';

/** One wallet of the relayer (a hot wallet, or a chain's treasury) as an operator sees it. */
export interface WalletStanding {
  chainId: number;
  address: string;
  role: WalletRole;
  balanceWei: bigint;
  /** Our signed transactions not ended yet. */
  pendingNonces: number;
  /** The intent in review its lane waits behind; null: not blocked. */
  blockedBy: string | null;
  /** Below its low mark (LOW_BALANCE_ETH; a treasury's own). */
  low: boolean;
  /** Retired by an operator: signs nothing new. */
  retired: boolean;
  /** A hot wallet's top-ups not ended (one per asset at most). */
  topUps: { id: string; status: string; asset: string; amount: bigint }[];
  /** What it holds of each token registered on its chain, in base units. */
  tokens: { alias: string; address: Hex; decimals: number; balance: bigint }[];
}

/**
 * The registered hot wallets below the low mark, from their balances alone (read once per
 * block; the wallets from one small table): what a readiness probe shows, often, from any process.
 */
export async function lowWallets({
  database,
  chains,
  lowBalanceWei = 0n,
}: Pick<ServiceDependencies, 'database' | 'chains' | 'lowBalanceWei'>): Promise<
  { chainId: number; address: string; balanceWei: bigint }[]
> {
  const perChain = await Promise.all(
    chains.chainIds.map(async (chainId) => {
      const chain = chains.get(chainId);
      const addresses = (await registeredWallets(database.kysely, chainId)) as Hex[];
      const balances = await Promise.all(addresses.map((address) => chain.walletBalance(address)));
      return addresses
        .map((address, i) => ({ chainId, address, balanceWei: balances[i]! }))
        .filter((wallet) => wallet.balanceWei < (chain.lowBalanceWei ?? lowBalanceWei));
    }),
  );
  return perChain.flat();
}

/**
 * Every wallet of every chain: the hot wallets (balance, nonces in flight, blocked or not, low or
 * not, a top-up under way), then the chain's treasury.
 */
export async function walletStandings({
  database,
  chains,
  lowBalanceWei = 0n,
}: Pick<ServiceDependencies, 'database' | 'chains' | 'lowBalanceWei'>): Promise<WalletStanding[]> {
  const perChain = await Promise.all(
    chains.chainIds.map(async (chainId) => {
      const chain = chains.get(chainId);
      const [retired, hot, topUps, tokens] = await Promise.all([
        retiredWallets(database.kysely, chainId),
        registeredWallets(database.kysely, chainId) as Promise<Hex[]>,
        openTopUps(database.kysely, chainId),
        listTokens(database.kysely, chainId),
      ]);
      const treasury = chain.treasury;
      const addresses = [...hot, ...(treasury ? [treasury.address] : [])];
      const [lanes, ...perToken] = await Promise.all([
        lanesOf(database, chain, addresses),
        ...tokens.map((token) => lanesOf(database, chain, addresses, token.address)),
      ]);
      const heldOf = (address: Hex) =>
        tokens.map((token, i) => ({
          alias: token.alias,
          address: token.address,
          decimals: token.decimals,
          balance: perToken[i]!.find((lane) => lane.address === address)?.token?.balance ?? 0n,
        }));
      return lanes.map((lane): WalletStanding => {
        const isTreasury = lane.address === treasury?.address;
        const own = topUps.filter((topUp) => topUp.to === lane.address);
        return {
          chainId,
          address: lane.address,
          role: isTreasury ? 'treasury' : 'hot',
          balanceWei: lane.balance,
          pendingNonces: lane.pending,
          blockedBy: lane.blockedBy ?? null,
          low:
            lane.balance <
            (isTreasury ? treasury!.lowBalanceWei : (chain.lowBalanceWei ?? lowBalanceWei)),
          retired: retired.has(lane.address),
          topUps: own.map(({ id, status, asset, amount }) => ({ id, status, asset, amount })),
          tokens: heldOf(lane.address),
        };
      });
    }),
  );
  return perChain.flat();
}

/** The chains' treasuries below their own low mark: what /readyz warns of. */
export async function lowTreasuries({
  chains,
}: Pick<ServiceDependencies, 'chains'>): Promise<
  { chainId: number; address: string; balanceWei: bigint; lowBalanceWei: bigint }[]
> {
  const treasuries = chains.chainIds.flatMap((chainId) => {
    const treasury = chains.get(chainId).treasury;
    return treasury ? [{ chainId, ...treasury }] : [];
  });
  const balances = await Promise.all(
    treasuries.map(({ chainId, address }) => chains.get(chainId).walletBalance(address)),
  );
  return treasuries
    .map(({ chainId, address, lowBalanceWei }, i) => ({
      chainId,
      address,
      balanceWei: balances[i]!,
      lowBalanceWei,
    }))
    .filter((treasury) => treasury.balanceWei < treasury.lowBalanceWei);
}

/** Why intents wait unsigned for a wallet, as /readyz says it (each a line per chain). */
export async function intentsWaitingForFunds(
  deps: Pick<ServiceDependencies, 'database'>,
): Promise<{ chainId: number; reasonCode: ReasonCode; count: number }[]> {
  const funds = heldIntentWaits.filter((name) => name !== ErrorName.walletBlocked);
  return countWaiting(deps.database.kysely, funds.map(reasonCodeOfError));
}

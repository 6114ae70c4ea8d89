import { lanesOf } from '../operations/wallet-lanes';
import type { Hex } from '../domain/transfer';
import { registeredWallets, retiredWallets } from '../store/wallet-pools';
import type { ServiceDependencies } from './dependencies';

/** One hot wallet as an operator sees it. */
export interface WalletStanding {
  chainId: number;
  address: string;
  balanceWei: bigint;
  /** Our signed transactions not ended yet. */
  pendingNonces: number;
  /** The intent in review its lane waits behind; null: not blocked. */
  blockedBy: string | null;
  /** Below LOW_BALANCE_ETH. */
  low: boolean;
  /** Retired by an operator: signs nothing new. */
  retired: boolean;
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

/** Every hot wallet of every chain: balance, nonces in flight, blocked or not, low or not. */
export async function walletStandings({
  database,
  chains,
  lowBalanceWei = 0n,
}: Pick<ServiceDependencies, 'database' | 'chains' | 'lowBalanceWei'>): Promise<WalletStanding[]> {
  const perChain = await Promise.all(
    chains.chainIds.map(async (chainId) => {
      const retired = await retiredWallets(database.kysely, chainId);
      const chain = chains.get(chainId);
      const mark = chain.lowBalanceWei ?? lowBalanceWei;
      return (await lanesOf(database, chain)).map((lane) => ({
        chainId,
        address: lane.address,
        balanceWei: lane.balance,
        pendingNonces: lane.pending,
        blockedBy: lane.blockedBy ?? null,
        low: lane.balance < mark,
        retired: retired.has(lane.address),
      }));
    }),
  );
  return perChain.flat();
}

import { BrokenInvariantError } from '../domain/errors';
import type { Chain } from '../chain/chain';
import { topUpAmount } from '../domain/custody';
import type { Hex } from '../domain/transfer';
import { insertTopUp, openTopUps } from '../store/top-ups';
import { recordWalletEvent } from '../store/webhook-outbox';
import { clearLow, markLow } from '../store/wallet-low-marks';
import { registeredWallets, retiredWallets } from '../store/wallet-pools';
import { newIntentId } from '../operations/new-id';
import { formatEther, parseUnits } from 'viem';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';
import { log } from '../domain/log';

export interface SweepTopUpsParameters {
  chainId: number;
}

export interface SweepTopUpsResult {
  /** Top-ups started this sweep (intent ids). */
  started: string[];
  /** Hot wallets below a mark the treasury could not pay for now (per asset). */
  unfunded: number;
}

type Deps = Pick<ActivityDependencies, 'db' | 'chains' | 'clock' | 'workflows' | 'failpoints'>;

/** One asset the hot wallets are kept above a mark in, in its base units. */
interface AssetMarks {
  /** `native`, or the token's address. */
  asset: string;
  lowBalanceWei: bigint;
  topUpTargetWei: bigint;
  balanceOf(wallet: Hex): Promise<bigint>;
  /** The treasury's own mark (native only; a token's treasury is low when it falls short). */
  treasuryMark: bigint;
}

/**
 * One chain's top-up sweep (a Temporal Schedule per chain starts it): in the native coin and each
 * token of `tokenTopUps`, every hot wallet below its low mark, not retired, with no top-up in the
 * asset not ended, gets one — an intent from the treasury, owned by the operators
 * (domain/custody.ts) — while the treasury can pay it after the top-ups it already has in flight
 * (and the most gas of each, in native). The top-up is written with `wallet.low_balance` (once a
 * dip) in one transaction, then its workflow started: a crash in between leaves it `authorized`,
 * for the orphan sweep to start. Two sweeps at once start one top-up per wallet and asset: the
 * database's unique index decides. A treasury below its own mark, or short of a top-up, is told
 * once a dip (`treasury.low_balance`).
 */
export const sweepTopUps =
  (deps: Deps) =>
  ({ chainId }: SweepTopUpsParameters): Promise<SweepTopUpsResult> =>
    whileHeartbeating(async () => {
      const { db, chains, workflows } = deps;
      if (!workflows)
        throw new BrokenInvariantError({ rule: 'sweepTopUps is given no workflow starter' });
      const chain = chains.get(chainId);
      const treasury = chain.treasury;
      if (!treasury) return { started: [], unfunded: 0 };
      const [registered, retired, open, assets] = await Promise.all([
        registeredWallets(db.kysely, chainId),
        retiredWallets(db.kysely, chainId),
        openTopUps(db.kysely, chainId),
        assetMarksOf(chain),
      ]);
      const hot = (registered as Hex[]).filter((wallet) => !retired.has(wallet));
      const underWay = new Set(open.map((topUp) => `${topUp.to}/${topUp.asset}`));
      // What the treasury can still give: its balances less what its top-ups in flight may take,
      // every one of them paying its most gas in native.
      const held = new Map<string, bigint>();
      for (const marks of assets) held.set(marks.asset, await marks.balanceOf(treasury.address));
      const left = new Map(held);
      // A top-up in a token no longer configured still holds its amount and gas.
      const spend = (asset: string, amount: bigint) => {
        left.set(asset, (left.get(asset) ?? 0n) - amount);
        left.set('native', left.get('native')! - chain.maxFeePerTransfer);
      };
      for (const topUp of open) spend(topUp.asset, topUp.amount);

      const started: string[] = [];
      let unfunded = 0;
      const short = new Set<string>();
      for (const marks of assets) {
        for (const address of hot) {
          const outcome = await sweepWallet(deps, chain, marks, address, {
            underWay: underWay.has(`${address}/${marks.asset}`),
            fundable: (amount) =>
              left.get(marks.asset)! >=
                amount + (marks.asset === 'native' ? chain.maxFeePerTransfer : 0n) &&
              left.get('native')! >= chain.maxFeePerTransfer,
          });
          if (outcome === 'unfunded') {
            unfunded++;
            short.add(marks.asset);
          } else if (outcome) {
            spend(marks.asset, outcome.amount);
            started.push(outcome.id);
          }
        }
      }
      for (const marks of assets) {
        await tellOfTreasury(deps, chain, marks, held.get(marks.asset)!, short.has(marks.asset));
      }
      return { started, unfunded };
    });

/**
 * The native coin and each token of the chain's top-ups, with their marks in base units. A token
 * whose decimals cannot be read is left out of this sweep (said so), the others go on.
 */
async function assetMarksOf(chain: Chain): Promise<AssetMarks[]> {
  const treasury = chain.treasury!;
  const tokens = await Promise.all(
    treasury.tokens.map(async ({ token, lowBalance, topUpTarget }) => {
      try {
        const { decimals } = await chain.tokenInfo(token);
        return [
          {
            asset: token,
            lowBalanceWei: parseUnits(lowBalance, decimals),
            topUpTargetWei: parseUnits(topUpTarget, decimals),
            balanceOf: (wallet: Hex) => chain.tokenBalance(token, wallet),
            treasuryMark: 0n,
          },
        ];
      } catch (error) {
        log.warn(
          `top-ups on chain ${chain.chainId}: token ${token} left out of this sweep, its decimals unread: ${(error as Error).message}`,
        );
        return [];
      }
    }),
  );
  return [
    {
      asset: 'native',
      lowBalanceWei: chain.lowBalanceWei ?? 0n,
      topUpTargetWei: treasury.topUpTargetWei,
      balanceOf: (wallet) => chain.walletBalance(wallet),
      treasuryMark: treasury.lowBalanceWei,
    },
    ...tokens.flat(),
  ];
}

/**
 * One hot wallet in one asset: at or above its mark, nothing (the dip is over); below, a top-up
 * written and started, or `unfunded` (told once a dip), or nothing (under way, or another sweep
 * won the race).
 */
async function sweepWallet(
  { db, clock, workflows, failpoints }: Deps,
  chain: Chain,
  marks: AssetMarks,
  address: Hex,
  { underWay, fundable }: { underWay: boolean; fundable: (amount: bigint) => boolean },
): Promise<{ id: string; amount: bigint } | 'unfunded' | undefined> {
  const { chainId } = chain;
  const mark = { chainId, address, asset: marks.asset };
  const balance = await marks.balanceOf(address);
  const amount = topUpAmount(balance, marks);
  if (amount === undefined) {
    await clearLow(db.kysely, mark);
    return undefined;
  }
  if (underWay) return undefined;
  const now = clock.now();
  const funded = fundable(amount);
  const topUp = await db.transaction(async (trx) => {
    const intent = funded
      ? await insertTopUp(
          trx,
          newIntentId(now.getTime()),
          { chainId, from: chain.treasury!.address, to: address, asset: marks.asset, amount },
          now,
        )
      : undefined;
    if (funded && !intent) return 'raced' as const;
    if (await markLow(trx, mark, now)) {
      await recordWalletEvent(
        trx,
        {
          type: 'wallet.low_balance',
          chainId,
          wallet: address,
          asset: marks.asset,
          balance,
          lowMark: marks.lowBalanceWei,
          topUpId: intent?.id ?? null,
        },
        now,
      );
    }
    return intent;
  });
  if (topUp === 'raced') return undefined;
  if (!topUp) return 'unfunded';
  failpoints?.reach('after-top-up-admitted');
  await workflows!.startIntent(topUp);
  return { id: topUp.id, amount };
}

/** `treasury.low_balance` once a dip: below its own mark, or short of a top-up it owes. */
async function tellOfTreasury(
  { db, clock }: Deps,
  chain: Chain,
  marks: AssetMarks,
  balance: bigint,
  short: boolean,
): Promise<void> {
  const treasury = chain.treasury!;
  const mark = { chainId: chain.chainId, address: treasury.address, asset: marks.asset };
  if (balance >= marks.treasuryMark && !short) {
    await clearLow(db.kysely, mark);
    return;
  }
  const now = clock.now();
  await db.transaction(async (trx) => {
    if (!(await markLow(trx, mark, now))) return;
    await recordWalletEvent(
      trx,
      {
        type: 'treasury.low_balance',
        chainId: chain.chainId,
        wallet: treasury.address,
        asset: marks.asset,
        balance,
        lowMark: marks.treasuryMark,
      },
      now,
    );
    log.warn(
      `treasury ${treasury.address} on chain ${chain.chainId}: ${marks.asset === 'native' ? `${formatEther(balance)} ETH` : `${balance} base units of ${marks.asset}`}, ${short ? 'short of a top-up it owes' : 'below its low mark'}: fund it`,
    );
  });
}

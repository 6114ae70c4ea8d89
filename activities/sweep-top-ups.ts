import { topUpAmount } from '../domain/custody';
import type { Hex } from '../domain/transfer';
import { insertTopUp, openTopUps } from '../store/intents';
import { recordWalletEvent } from '../store/webhook-outbox';
import { clearLow, markLow } from '../store/wallet-low-marks';
import { registeredWallets, retiredWallets } from '../store/wallet-pools';
import { newIntentId } from '../operations/new-intent-id';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';

export interface SweepTopUpsParameters {
  chainId: number;
}

export interface SweepTopUpsResult {
  /** Top-ups started this sweep (intent ids). */
  started: string[];
  /** Hot wallets below their mark the treasury could not pay for now. */
  unfunded: number;
  /** The treasury's balance, in wei (a decimal string: JSON has no bigint). */
  treasuryWei: string;
}

/**
 * One chain's top-up sweep (a Temporal Schedule per chain starts it): every hot wallet below its
 * low mark, not retired, with no top-up not ended, gets one — an intent from the treasury, owned
 * by the operators (domain/custody.ts) — up to what the treasury can pay after the top-ups it
 * already has in flight, each with its most gas. The top-up is written with `wallet.low_balance`
 * (once a dip) in one transaction, then its workflow started: a crash in between leaves it
 * `authorized`, for the orphan sweep to start. Two sweeps at once start one top-up per wallet:
 * the database's unique index decides. A treasury below its own mark, or short of a top-up, is
 * told once a dip (`treasury.low_balance`).
 */
export const sweepTopUps =
  (deps: Pick<ActivityDependencies, 'db' | 'chains' | 'clock' | 'workflows' | 'failpoints'>) =>
  ({ chainId }: SweepTopUpsParameters): Promise<SweepTopUpsResult> =>
    whileHeartbeating(async () => {
      const { db, chains, clock, workflows, failpoints } = deps;
      if (!workflows) throw new Error('sweepTopUps needs a workflow starter in its dependencies');
      const chain = chains.get(chainId);
      const treasury = chain.treasury;
      if (!treasury) return { started: [], unfunded: 0, treasuryWei: '0' };
      const marks = {
        lowBalanceWei: chain.lowBalanceWei ?? 0n,
        topUpTargetWei: treasury.topUpTargetWei,
      };
      const [registered, retired, open] = await Promise.all([
        registeredWallets(db.kysely, chainId),
        retiredWallets(db.kysely, chainId),
        openTopUps(db.kysely, chainId),
      ]);
      const treasuryWei = await chain.walletBalance(treasury.address);
      // What the treasury can still give: its balance less what its top-ups in flight may take.
      let spendable = treasuryWei;
      for (const topUp of open.values()) spendable -= topUp.amount + chain.maxFeePerTransfer;
      const started: string[] = [];
      let unfunded = 0;
      for (const address of registered.filter((wallet) => !retired.has(wallet)) as Hex[]) {
        const wallet = { chainId, address };
        const balance = await chain.walletBalance(address);
        const amount = topUpAmount(balance, marks);
        if (amount === undefined) {
          await clearLow(db.kysely, wallet);
          continue;
        }
        if (open.has(address)) continue;
        const now = clock.now();
        const fundable = spendable >= amount + chain.maxFeePerTransfer;
        const topUp = await db.transaction(async (trx) => {
          const intent = fundable
            ? await insertTopUp(
                trx,
                newIntentId(now.getTime()),
                { chainId, from: treasury.address, to: address, amount },
                now,
              )
            : undefined;
          if (fundable && !intent) return 'raced' as const;
          if (await markLow(trx, wallet, now)) {
            await recordWalletEvent(
              trx,
              {
                type: 'wallet.low_balance',
                chainId,
                wallet: address,
                balance,
                lowMark: marks.lowBalanceWei,
                topUpId: intent?.id ?? null,
              },
              now,
            );
          }
          return intent;
        });
        if (topUp === 'raced') continue;
        if (!topUp) {
          unfunded++;
          continue;
        }
        spendable -= amount + chain.maxFeePerTransfer;
        failpoints?.reach('after-top-up-admitted');
        await workflows.startIntent(topUp);
        started.push(topUp.id);
      }
      await tellOfTreasury(deps, chainId, treasuryWei, unfunded > 0);
      return { started, unfunded, treasuryWei: treasuryWei.toString() };
    });

/** `treasury.low_balance` once a dip: below its own mark, or short of a top-up it owes. */
async function tellOfTreasury(
  { db, chains, clock }: Pick<ActivityDependencies, 'db' | 'chains' | 'clock'>,
  chainId: number,
  balance: bigint,
  short: boolean,
): Promise<void> {
  const treasury = chains.get(chainId).treasury!;
  const wallet = { chainId, address: treasury.address };
  if (balance >= treasury.lowBalanceWei && !short) {
    await clearLow(db.kysely, wallet);
    return;
  }
  const now = clock.now();
  await db.transaction(async (trx) => {
    if (!(await markLow(trx, wallet, now))) return;
    await recordWalletEvent(
      trx,
      {
        type: 'treasury.low_balance',
        chainId,
        wallet: treasury.address,
        balance,
        lowMark: treasury.lowBalanceWei,
      },
      now,
    );
    console.warn(
      `treasury ${treasury.address} on chain ${chainId}: ${balance} wei, ${short ? 'short of a top-up it owes' : 'below its low mark'}: fund it`,
    );
  });
}

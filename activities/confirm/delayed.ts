import { formatGwei } from 'viem';
import type { Chain } from '../../chain/chain';
import { decideDelayedNotice, delayDetail, type DelayedNotice } from '../../domain/delayed-notice';
import type { Intent } from '../../domain/intent';
import { getIntentForUpdate } from '../../store/intents';
import { listAttempts, type TransactionAttempt } from '../../store/transaction-attempts';
import { recordStateChange } from '../../store/webhook-outbox';
import type { ActivityDependencies } from '../dependencies';

/**
 * After a look that left a payment unmined: tells its tenant it is delayed when
 * `decideDelayedNotice` says so — the `intent.delayed` event and the intent's count of notices in
 * one transaction, so a look tried again after a crash counts the notice it already sent.
 */
export async function sayIfDelayed(
  { db, clock, failpoints }: ActivityDependencies,
  chain: Chain,
  intent: Intent,
  before: readonly TransactionAttempt[],
  nextLookInMs: number,
): Promise<DelayedNotice | undefined> {
  const first = before[0];
  if (!first || chain.delayedNoticesMax === 0) return undefined;
  const now = clock.now();
  const unminedForMs = now.getTime() - first.createdAt.getTime();
  if (unminedForMs < chain.delayedAfterMs) return undefined;
  const after = await listAttempts(db.kysely, intent.id);
  const bumps = (attempts: readonly TransactionAttempt[]) =>
    attempts.filter((attempt) => attempt.cause === 'fee_bump').length;
  const told = await db.transaction(async (trx) => {
    const current = await getIntentForUpdate(db, trx, intent.id);
    const { delayed_notices: noticesSent } = await trx
      .selectFrom('intents')
      .select('delayed_notices')
      .where('id', '=', intent.id)
      .executeTakeFirstOrThrow();
    const reason = decideDelayedNotice({
      unminedForMs,
      delayedAfterMs: chain.delayedAfterMs,
      noticesSent,
      maxNotices: chain.delayedNoticesMax,
      bumped: bumps(after) > bumps(before),
    });
    if (!reason || current.status !== intent.status) return undefined;
    const latest = after.at(-1)!;
    const delay = delayDetail({
      reason,
      unminedForMs,
      feeBumps: bumps(after),
      maxFeePerGas: latest.maxFeePerGas,
      maxFeePerGasGwei: formatGwei(latest.maxFeePerGas),
      nextLookInMs,
      stuckAfterMs: chain.stuckAfterMs,
    });
    await trx
      .updateTable('intents')
      .set({ delayed_notices: noticesSent + 1 })
      .where('id', '=', intent.id)
      .execute();
    await recordStateChange(trx, current, current.status, now, 'intent.delayed', delay);
    return reason;
  });
  if (told) failpoints?.reach('after-delayed-notice');
  return told;
}

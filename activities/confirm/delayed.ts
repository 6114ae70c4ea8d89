import type { Chain } from '../../chain/chain';
import { decideDelayedNotice, delayDetail, type DelayedNotice } from '../../domain/delayed-notice';
import type { Intent } from '../../domain/intent';
import { getIntent } from '../../store/intents';
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
  // Read without a lock: most looks past the threshold tell nothing, and the count is set below
  // only if it is still this one.
  const { delayed_notices: noticesSent } = await db.kysely
    .selectFrom('intents')
    .select('delayed_notices')
    .where('id', '=', intent.id)
    .executeTakeFirstOrThrow();
  if (noticesSent >= chain.delayedNoticesMax) return undefined;
  const after = await listAttempts(db.kysely, intent.id);
  const bumps = (attempts: readonly TransactionAttempt[]) =>
    attempts.filter((attempt) => attempt.cause === 'fee_bump').length;
  const reason = decideDelayedNotice({
    unminedForMs,
    delayedAfterMs: chain.delayedAfterMs,
    noticesSent,
    maxNotices: chain.delayedNoticesMax,
    bumped: bumps(after) > bumps(before),
  });
  if (!reason) return undefined;
  const told = await db.transaction(async (trx) => {
    // Compare and set: a look tried again after a crash finds the count moved and tells nothing
    // twice; an intent that moved on meanwhile is not delayed any more.
    const counted = await trx
      .updateTable('intents')
      .set({ delayed_notices: noticesSent + 1 })
      .where('id', '=', intent.id)
      .where('delayed_notices', '=', noticesSent)
      .where('status', '=', intent.status)
      .executeTakeFirst();
    if (Number(counted.numUpdatedRows) === 0) return undefined;
    // The intent as this look left it (a bump changed its transaction): the event's snapshot.
    const current = await getIntent(trx, intent.id);
    const delay = delayDetail({
      reason,
      unminedForMs,
      feeBumps: bumps(after),
      maxFeePerGas: after.at(-1)!.maxFeePerGas,
      nextLookInMs,
      stuckAfterMs: chain.stuckAfterMs,
    });
    await recordStateChange(trx, current, current.status, now, 'intent.delayed', delay);
    return reason;
  });
  if (told) failpoints?.reach('after-delayed-notice');
  return told;
}

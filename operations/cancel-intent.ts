import { IntentNotFoundError, NotCancellableError } from '../domain/errors';
import { cancellableStatuses, IntentStatus, type Intent } from '../domain/intent';
import { recordAudit } from '../store/audit-log';
import type { Database } from '../store/database';
import { getIntentForUpdate, transitionIntent } from '../store/intents';
import { endHold } from '../store/holds';
import { ReasonCode } from '../domain/reason-codes';

/**
 * Cancels an intent that has nothing signed yet: `cancelled`, hold released, audit entry, all in
 * one transaction. The broadcast step signs in a transaction on the same row, so exactly one of
 * the two wins: a cancelled intent is never signed, a signed one is never cancelled
 * (NotCancellable).
 */
export async function cancelUnsignedIntent(
  database: Database,
  intentId: string,
  actor: string,
  now: Date,
  visible: (intent: Intent) => boolean = () => true,
): Promise<{ intent: Intent; changed: boolean }> {
  return database.transaction(async (trx) => {
    const current = await getIntentForUpdate(database, trx, intentId);
    if (!visible(current)) throw new IntentNotFoundError(intentId);
    if (current.status === IntentStatus.cancelled) return { intent: current, changed: false };
    if (!cancellableStatuses.has(current.status)) {
      throw new NotCancellableError(intentId, current.status);
    }
    const cancelled = await transitionIntent(
      trx,
      current,
      {
        status: IntentStatus.cancelled,
        reason: { code: ReasonCode.cancelledByCaller, text: `cancelled by ${actor}` },
      },
      now,
    );
    const released = await endHold(database, trx, intentId, 'released', now);
    await recordAudit(
      trx,
      {
        intentId,
        action: 'cancel',
        actor,
        detail: { from: current.status, holdReleased: released },
      },
      now,
    );
    return { intent: cancelled, changed: true };
  });
}

import type { Client } from '@temporalio/client';
import type { Database } from '../store/database';
import { getIntentForUpdate, transitionIntent } from '../store/intents';
import { endHold } from '../store/ledger';
import { IntentNotFoundError, NotCancellableError } from '../domain/errors';
import { IntentStatus, notYetSignedStatuses, type Intent } from '../domain/intent';
import { paymentIntentWorkflowId } from '../domain/workflow-ids';
import { recordAudit } from '../store/audit-log';
import { actorOf, canSee, type Caller } from './caller';

export interface CancelDependencies {
  database: Database;
  client: Client;
  clock?: () => Date;
}

/**
 * Cancels an intent a tenant may see (see cancelUnsignedIntent), then asks its workflow to stop
 * waiting. Cancelling again returns the cancelled intent.
 */
export async function cancelIntent(
  deps: CancelDependencies,
  caller: Caller,
  intentId: string,
): Promise<Intent> {
  const { intent, changed } = await cancelUnsignedIntent(
    deps.database,
    intentId,
    actorOf(caller),
    deps.clock?.() ?? new Date(),
    (found) => canSee(caller, found),
  );
  if (changed) {
    // Only a shortcut: the workflow finds the intent closed at its next step anyway, so a failed
    // request (workflow already gone, Temporal unreachable) changes nothing that matters.
    await deps.client.workflow
      .getHandle(paymentIntentWorkflowId(intentId))
      .cancel()
      .catch(() => undefined);
  }
  return intent;
}

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
    if (!notYetSignedStatuses.has(current.status)) {
      throw new NotCancellableError(intentId, current.status);
    }
    const cancelled = await transitionIntent(
      trx,
      current,
      { status: IntentStatus.cancelled, reason: `cancelled by ${actor}` },
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

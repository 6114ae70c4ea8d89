import type { Client } from '@temporalio/client';
import { intentWorkflow } from '../client/intent-workflows';
import { NotCancellableError, RelayerError } from '../domain/errors';
import { ErrorName } from '../domain/error-catalogue';
import { mayBeOnChain, type IntentStatus, type Intent } from '../domain/intent';
import { cancelUnsignedIntent } from '../operations/cancel-intent';
import type { Database } from '../store/database';
import { getIntent } from '../store/intents';
import { actorOf, canSee, type Caller } from './caller';
import { askIntentWorkflow } from './update-refusal';

export interface CancelDependencies {
  database: Database;
  client: Client;
  clock?: () => Date;
}

/**
 * Cancels an intent a tenant may see. Nothing signed yet: it ends `cancelled` at once (see
 * cancelUnsignedIntent), and its workflow is asked to stop waiting; cancelling again returns it.
 * Sent but not mined: its workflow takes the nonce back with a zero-value transfer (the
 * `cancelUnmined` update) and answers with the intent still `confirming`, its current transaction
 * the cancel: mined, the intent fails (cancelled_on_chain); if the payment wins, it is confirmed.
 */
export async function cancelIntent(
  deps: CancelDependencies,
  caller: Caller,
  intentId: string,
  note?: string,
): Promise<Intent> {
  const actor = actorOf(caller);
  try {
    const { intent, changed } = await cancelUnsignedIntent(
      deps.database,
      intentId,
      actor,
      deps.clock?.() ?? new Date(),
      (found) => canSee(caller, found),
    );
    if (changed) {
      // Only a shortcut: the workflow finds the intent closed at its next step anyway, so a
      // failed request (workflow already gone, Temporal unreachable) changes nothing that matters.
      await intentWorkflow(deps.client, intentId)
        .cancel()
        .catch(() => undefined);
    }
    return intent;
  } catch (error) {
    const status = sentUnminedStatus(error);
    if (!status) throw error;
    await askIntentWorkflow(
      deps.client,
      intentId,
      () => intentWorkflow(deps.client, intentId).cancelUnmined({ actor, note }),
      () =>
        new NotCancellableError(
          intentId,
          status,
          'ended',
          'its workflow has ended, so nothing would follow a cancel: an operator resolves it',
        ),
    );
    return getIntent(deps.database.kysely, intentId);
  }
}

/** The status of a payment the unsigned cancel refused because it was signed or sent. */
function sentUnminedStatus(error: unknown): IntentStatus | undefined {
  if (!(error instanceof RelayerError) || error.name !== ErrorName.notCancellable) return;
  const { status } = error.details as { status: IntentStatus };
  return mayBeOnChain(status) ? status : undefined;
}

import type { Client } from '@temporalio/client';
import { intentWorkflow } from '../client/intent-workflows';
import type { Intent } from '../domain/intent';
import { cancelUnsignedIntent } from '../operations/cancel-intent';
import type { Database } from '../store/database';
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
    await intentWorkflow(deps.client, intentId)
      .cancel()
      .catch(() => undefined);
  }
  return intent;
}

import type { Client } from '@temporalio/client';
import { IntentStillOpenError } from '../domain/errors';
import { terminalStatuses, type Intent } from '../domain/intent';
import { paymentIntentWorkflowId } from '../domain/workflow-ids';
import { recordAudit } from '../store/audit-log';
import { eraseCallerReference } from '../store/caller-references';
import type { Database } from '../store/database';
import { getIntent } from '../store/intents';
import { actorOf, type Caller } from './caller';

export interface RedactDependencies {
  database: Database;
  client: Client;
  clock?: () => Date;
}

/**
 * Erases an ended intent's reference and metadata wherever the relayer keeps them, for an
 * erasure request: its row, the search table, its webhook events' bodies, and — the reference
 * being a search attribute — its workflow's history and visibility in Temporal, which the
 * relayer no longer needs once the intent has ended (its row, attempts, audit and postings stay).
 * An intent still open is refused: its workflow runs on the history it would lose.
 */
export async function redactIntent(
  deps: RedactDependencies,
  caller: Caller,
  intentId: string,
  note?: string,
): Promise<Intent> {
  const now = deps.clock?.() ?? new Date();
  const { database } = deps;
  const intent = await getIntent(database.kysely, intentId);
  if (!terminalStatuses.has(intent.status)) {
    throw new IntentStillOpenError({ intentId, status: intent.status });
  }
  const hadReference = intent.reference != null;
  await database.transaction(async (trx) => {
    await eraseCallerReference(trx, intentId);
    // What was erased is not repeated here: the entry says that, who and when.
    await recordAudit(
      trx,
      { intentId, action: 'redact', actor: actorOf(caller), detail: { note: note ?? null } },
      now,
    );
  });
  if (hadReference) await deleteClosedWorkflow(deps.client, paymentIntentWorkflowId(intentId));
  return getIntent(database.kysely, intentId);
}

const grpcNotFound = 5;

/** Deletes an ended workflow's history and visibility record (gone already: nothing to do). */
async function deleteClosedWorkflow(client: Client, workflowId: string): Promise<void> {
  try {
    await client.workflowService.deleteWorkflowExecution({
      namespace: client.options.namespace,
      workflowExecution: { workflowId },
    });
  } catch (error) {
    if ((error as { code?: number }).code !== grpcNotFound) throw error;
  }
}

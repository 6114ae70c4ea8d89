import type { Client } from '@temporalio/client';
import { batchOutcomeCounts, batchResults, type BatchItemResult } from '../store/batch-results';
import { findBatch, type Batch } from '../store/batches';
import type { Database } from '../store/database';
import { batchWorkflow } from '../client/batch-workflows';
import { BatchNotFoundError } from '../domain/errors';
import { actorOf, canSee, type Caller } from './caller';
import { relayerErrorOf } from './update-refusal';

export interface BatchWithCounts extends Batch {
  /** Items by status: pending, running, each intent status, rejected, skipped. */
  counts: Record<string, number>;
}

/** Another tenant's batch does not exist for the caller. */
async function visibleBatch(database: Database, caller: Caller, batchId: string): Promise<Batch> {
  const batch = await findBatch(database.kysely, { id: batchId });
  if (!batch || !canSee(caller, batch)) throw new BatchNotFoundError(batchId);
  return batch;
}

/** The batch with its items counted by status (one pass over its items). */
export async function findBatchFor(
  database: Database,
  caller: Caller,
  batchId: string,
): Promise<BatchWithCounts> {
  const batch = await visibleBatch(database, caller, batchId);
  return { ...batch, counts: await batchOutcomeCounts(database.kysely, batchId) };
}

/** results[i] for item i, a page at a time, in input order. */
export async function batchResultsFor(
  database: Database,
  caller: Caller,
  batchId: string,
  page: { fromIndex: number; limit: number },
): Promise<{ results: BatchItemResult[]; nextIndex: number | null }> {
  const batch = await visibleBatch(database, caller, batchId);
  const results = await batchResults(database.kysely, batchId, page.fromIndex, page.limit);
  const next = page.fromIndex + results.length;
  return { results, nextIndex: next < batch.itemCount ? next : null };
}

/**
 * Asks the batch to stop: nothing more starts, running items with nothing signed are cancelled,
 * signed ones are followed to their end (see workflows/payment-batch/).
 */
export async function cancelBatch(
  client: Client,
  database: Database,
  caller: Caller,
  batchId: string,
  reason: string,
): Promise<BatchWithCounts> {
  const batch = await findBatchFor(database, caller, batchId);
  if (batch.status === 'running') {
    await batchWorkflow(client, batchId).cancel(`${reason} (${actorOf(caller)})`);
  }
  if (batch.status === 'awaiting_approval') {
    // Nothing started yet: cancelling it is rejecting it, whoever asks (four eyes bind approvals).
    await batchWorkflow(client, batchId)
      .decideApproval({
        decision: 'reject',
        actor: actorOf(caller),
        keyId: caller.keyId,
        note: `cancelled: ${reason}`,
      })
      .catch((error: unknown) => {
        throw relayerErrorOf(error);
      });
    return findBatchFor(database, caller, batchId);
  }
  return batch;
}

import type { Client } from '@temporalio/client';
import { createHash } from 'node:crypto';
import type { Database } from '../store/database';
import { findBatch, insertBatch, type Batch, type BatchItemRequest } from '../store/batches';
import type { BatchMode } from '../domain/batch';
import { IntentConflictError, UnknownTenantError } from '../domain/errors';
import { startBatchWorkflow } from '../client/batch-workflows';
import { newIntentId } from '../operations/new-intent-id';
import { findTenant } from '../store/tenants';

export interface BatchRequest {
  items: BatchItemRequest[];
  concurrency: number;
  mode: BatchMode;
}

export interface SubmitBatchDependencies {
  database: Database;
  client: Client;
  taskQueue: string;
  clock?: () => Date;
}

const fingerprint = (request: BatchRequest): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        request.mode,
        request.concurrency,
        request.items.map((item) => [item.chainId, item.from, item.to, item.amount.toString()]),
      ]),
    )
    .digest('hex');

/**
 * Records a batch and its items in one transaction and starts its workflow. The same
 * Idempotency-Key with the same items returns the same batch; with other items it is refused.
 * Items are only validated here: each becomes an intent (and passes admission) when its turn
 * comes, so a batch is never refused for the tenant's in-flight limit.
 */
export async function submitBatch(
  deps: SubmitBatchDependencies,
  tenantId: string,
  request: BatchRequest,
  idempotencyKey: string,
): Promise<{ batch: Batch; created: boolean }> {
  const now = deps.clock?.() ?? new Date();
  const requestSha256 = fingerprint(request);
  const { database } = deps;
  const { id, created } = await database.transaction(async (trx) => {
    const existing = await findBatch(trx, { tenantId, idempotencyKey });
    if (existing) {
      if (existing.requestSha256 !== requestSha256) {
        throw new IntentConflictError(existing.id, idempotencyKey);
      }
      return { id: existing.id, created: false };
    }
    if (!(await findTenant(trx, tenantId))) throw new UnknownTenantError(tenantId);
    const batchId = newIntentId(now.getTime()).replace(/^pi_/, 'pb_');
    await insertBatch(
      trx,
      {
        id: batchId,
        tenantId,
        mode: request.mode,
        concurrency: request.concurrency,
        itemCount: request.items.length,
        idempotencyKey,
        requestSha256,
      },
      request.items,
      now,
    );
    return { id: batchId, created: true };
  });
  const batch = (await findBatch(database.kysely, { id }))!;
  await startBatchWorkflow(deps.client, deps.taskQueue, batch);
  return { batch, created };
}

import type { Kysely, Selectable } from 'kysely';
import type { IntentPriority } from '../domain/intent-priority';
import type { BatchMode } from '../domain/batch';
import type { NewIntent } from '../domain/intent-request';
import { ReasonCode, type Reason } from '../domain/reason-codes';
import type { Database } from './database';
import {
  fromTimestamp,
  timestampOrNull,
  type BatchesTable,
  type BatchStatus,
  type Schema,
} from './schema';

export interface Batch {
  id: string;
  tenantId: string;
  mode: BatchMode;
  concurrency: number;
  itemCount: number;
  status: BatchStatus;
  /** Why it stopped or was rejected: null while it runs or once it completed. */
  cause: Reason | null;
  idempotencyKey: string;
  requestSha256: string;
  createdAt: Date;
  updatedAt: Date;
  /** The API key that submitted it (null: none recorded). */
  submittedBy?: string | null;
  /** Who approved (or rejected) it, when it awaited approval as a batch; their note. */
  decidedBy?: string | null;
  decisionNote?: string | null;
  /** Carried by each item's intent: not signed after / before (null: none). */
  validUntil?: Date | null;
  notBefore?: Date | null;
  /** Its items' priority; null: normal (a batch from before priorities). */
  priority?: IntentPriority | null;
}

export type BatchItemRequest = Omit<NewIntent, 'tenantId'>;

const batchFromRow = (row: Selectable<BatchesTable>): Batch => ({
  id: row.id,
  tenantId: row.tenant_id,
  mode: row.mode,
  concurrency: Number(row.concurrency),
  itemCount: Number(row.item_count),
  status: row.status,
  cause:
    row.cause === null
      ? null
      : { code: row.cause_code ?? ReasonCode.legacyUnknown, text: row.cause },
  idempotencyKey: row.idempotency_key,
  requestSha256: row.request_sha256,
  createdAt: fromTimestamp(row.created_at),
  updatedAt: fromTimestamp(row.updated_at),
  submittedBy: row.submitted_by ?? null,
  decidedBy: row.decided_by ?? null,
  decisionNote: row.decision_note ?? null,
  validUntil: timestampOrNull(row.valid_until),
  notBefore: timestampOrNull(row.not_before),
  priority: row.priority ?? null,
});

export async function findBatch(
  db: Kysely<Schema>,
  where: { id: string } | { tenantId: string; idempotencyKey: string },
): Promise<Batch | undefined> {
  let query = db.selectFrom('batches').selectAll();
  query =
    'id' in where
      ? query.where('id', '=', where.id)
      : query
          .where('tenant_id', '=', where.tenantId)
          .where('idempotency_key', '=', where.idempotencyKey);
  const row = await query.executeTakeFirst();
  return row && batchFromRow(row);
}

/**
 * Batches running (or awaiting approval) since before `cutoff`: the ones a crash may have left
 * without a workflow.
 */
export async function runningBatchesBefore(db: Kysely<Schema>, cutoff: Date): Promise<Batch[]> {
  const rows = await db
    .selectFrom('batches')
    .selectAll()
    .where('status', 'in', ['running', 'awaiting_approval'])
    .where('created_at', '<=', cutoff.toISOString())
    .limit(1000)
    .execute();
  return rows.map(batchFromRow);
}

const causeColumns = (cause: Reason | null) => ({
  cause: cause?.text ?? null,
  cause_code: cause?.code ?? null,
});

/** The batch and all its items, in one transaction; items go in by the thousand. */
export async function insertBatch(
  trx: Kysely<Schema>,
  batch: Omit<
    Batch,
    'status' | 'cause' | 'createdAt' | 'updatedAt' | 'decidedBy' | 'decisionNote'
  > & {
    /** `awaiting_approval` when an item crosses its approval threshold (else `running`). */
    status?: BatchStatus;
  },
  items: BatchItemRequest[],
  now: Date,
): Promise<void> {
  await trx
    .insertInto('batches')
    .values({
      id: batch.id,
      tenant_id: batch.tenantId,
      mode: batch.mode,
      concurrency: batch.concurrency,
      item_count: batch.itemCount,
      status: batch.status ?? 'running',
      cause: null,
      idempotency_key: batch.idempotencyKey,
      // Only when known: tools that write batches on a schema from before migration 0016 still can.
      ...(batch.submittedBy != null && { submitted_by: batch.submittedBy }),
      ...(batch.validUntil && { valid_until: batch.validUntil.toISOString() }),
      ...(batch.notBefore && { not_before: batch.notBefore.toISOString() }),
      ...(batch.priority && { priority: batch.priority }),
      request_sha256: batch.requestSha256,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
  // SQLite takes at most 32766 bound values per statement: 10 columns × 1000 rows stay under it.
  for (let start = 0; start < items.length; start += 1000) {
    await trx
      .insertInto('batch_items')
      .values(
        items.slice(start, start + 1000).map((item, offset) => ({
          batch_id: batch.id,
          item_index: start + offset,
          chain_id: item.chainId,
          from_address: item.from ?? null,
          to_address: item.to,
          asset: item.asset ?? 'native',
          amount: item.amount.toString(),
          state: 'pending' as const,
          ...(item.reference !== undefined && { reference: item.reference }),
          ...(item.metadata !== undefined && { metadata: JSON.stringify(item.metadata) }),
          ...(item.maxFeePerGas !== undefined && { max_fee_per_gas: item.maxFeePerGas.toString() }),
        })),
      )
      .execute();
  }
}

export async function setBatchStatus(
  db: Kysely<Schema>,
  batchId: string,
  change: { status: BatchStatus; cause: Reason | null },
  now: Date,
): Promise<void> {
  await db
    .updateTable('batches')
    .set({ status: change.status, ...causeColumns(change.cause), updated_at: now.toISOString() })
    .where('id', '=', batchId)
    .execute();
}

/** Reads the batch and locks its row until the transaction ends. */
export async function findBatchForUpdate(
  database: Database,
  trx: Kysely<Schema>,
  id: string,
): Promise<Batch | undefined> {
  const row = await database
    .forUpdate(trx.selectFrom('batches').selectAll().where('id', '=', id))
    .executeTakeFirst();
  return row && batchFromRow(row);
}

/** A decision on a batch awaiting approval: `running` (approved) or `rejected`, by whom, why. */
export async function decideBatch(
  trx: Kysely<Schema>,
  batchId: string,
  decision: {
    status: 'running' | 'rejected';
    decidedBy: string;
    note: string | null;
    cause: Reason | null;
  },
  now: Date,
): Promise<void> {
  await trx
    .updateTable('batches')
    .set({
      status: decision.status,
      ...causeColumns(decision.cause),
      decided_by: decision.decidedBy,
      decision_note: decision.note,
      updated_at: now.toISOString(),
    })
    .where('id', '=', batchId)
    .execute();
}

import type { Kysely, Selectable } from 'kysely';
import type { BatchItemOutcome, BatchMode } from '../domain/batch';
import type { IntentStatus } from '../domain/intent';
import type { NewIntent } from '../domain/intent-request';
import {
  fromTimestamp,
  type BatchesTable,
  type BatchItemState,
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
  cause: string | null;
  idempotencyKey: string;
  requestSha256: string;
  createdAt: Date;
  updatedAt: Date;
}

export type BatchItemRequest = Omit<NewIntent, 'tenantId'>;

const batchFromRow = (row: Selectable<BatchesTable>): Batch => ({
  id: row.id,
  tenantId: row.tenant_id,
  mode: row.mode,
  concurrency: Number(row.concurrency),
  itemCount: Number(row.item_count),
  status: row.status,
  cause: row.cause,
  idempotencyKey: row.idempotency_key,
  requestSha256: row.request_sha256,
  createdAt: fromTimestamp(row.created_at),
  updatedAt: fromTimestamp(row.updated_at),
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

/** Batches still running since before `cutoff`: the ones a crash may have left without a workflow. */
export async function runningBatchesBefore(db: Kysely<Schema>, cutoff: Date): Promise<Batch[]> {
  const rows = await db
    .selectFrom('batches')
    .selectAll()
    .where('status', '=', 'running')
    .where('created_at', '<=', cutoff.toISOString())
    .limit(1000)
    .execute();
  return rows.map(batchFromRow);
}

/** The batch and all its items, in one transaction; items go in by the thousand. */
export async function insertBatch(
  trx: Kysely<Schema>,
  batch: Omit<Batch, 'status' | 'cause' | 'createdAt' | 'updatedAt'>,
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
      status: 'running',
      cause: null,
      idempotency_key: batch.idempotencyKey,
      request_sha256: batch.requestSha256,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
  // SQLite takes at most 32766 bound values per statement: 7 columns × 1000 rows stays under it.
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
        })),
      )
      .execute();
  }
}

export interface BatchItemRow {
  index: number;
  chainId: number;
  /** Null: the relayer chooses the wallet when the item's intent is signed. */
  from: `0x${string}` | null;
  to: `0x${string}`;
  /** `native`, or the token's address. */
  asset: string;
  amount: bigint;
  state: BatchItemState;
  intentId: string | null;
}

export async function batchItems(
  db: Kysely<Schema>,
  batchId: string,
  fromIndex: number,
  count: number,
): Promise<BatchItemRow[]> {
  const rows = await db
    .selectFrom('batch_items')
    .select([
      'item_index',
      'chain_id',
      'from_address',
      'to_address',
      'asset',
      'amount',
      'state',
      'intent_id',
    ])
    .where('batch_id', '=', batchId)
    .where('item_index', '>=', fromIndex)
    .orderBy('item_index')
    .limit(count)
    .execute();
  return rows.map((row) => ({
    index: Number(row.item_index),
    chainId: Number(row.chain_id),
    from: row.from_address as `0x${string}` | null,
    to: row.to_address as `0x${string}`,
    asset: row.asset,
    amount: BigInt(row.amount),
    state: row.state,
    intentId: row.intent_id,
  }));
}

export async function findBatchItem(
  db: Kysely<Schema>,
  batchId: string,
  index: number,
): Promise<BatchItemRow | undefined> {
  const [item] = await batchItems(db, batchId, index, 1);
  return item?.index === index ? item : undefined;
}

export async function updateBatchItem(
  db: Kysely<Schema>,
  batchId: string,
  index: number,
  change: Partial<{
    state: BatchItemState;
    intent_id: string;
    outcome: BatchItemOutcome;
    error_code: string;
    error_message: string;
    started_at: string;
    finished_at: string;
  }>,
): Promise<void> {
  await db
    .updateTable('batch_items')
    .set(change)
    .where('batch_id', '=', batchId)
    .where('item_index', '=', index)
    .execute();
}

/** Marks every item not started yet as skipped; returns how many. */
export async function skipPendingBatchItems(
  db: Kysely<Schema>,
  batchId: string,
  now: Date,
): Promise<number> {
  const result = await db
    .updateTable('batch_items')
    .set({ state: 'skipped', outcome: 'skipped', finished_at: now.toISOString() })
    .where('batch_id', '=', batchId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function setBatchStatus(
  db: Kysely<Schema>,
  batchId: string,
  change: { status: BatchStatus; cause: string | null },
  now: Date,
): Promise<void> {
  await db
    .updateTable('batches')
    .set({ ...change, updated_at: now.toISOString() })
    .where('id', '=', batchId)
    .execute();
}

export interface BatchItemResult {
  index: number;
  /** The outcome once ended; before, `pending` (not started) or the intent's current status. */
  status: BatchItemOutcome | 'pending' | 'running';
  intentId: string | null;
  txHash: string | null;
  errorCode: string | null;
  reason: string | null;
}

/** An item's own state until it has an intent, then the intent's status: the one truth. */
const itemStatus = (
  state: BatchItemState,
  intentStatus: IntentStatus | null,
): BatchItemResult['status'] =>
  state === 'rejected' || state === 'skipped' || state === 'pending'
    ? state
    : (intentStatus ?? 'running');

/**
 * Results in input order. A started item's outcome is its intent's status now (an operator may
 * have resolved it since), so the intents table stays the one truth.
 */
export async function batchResults(
  db: Kysely<Schema>,
  batchId: string,
  fromIndex: number,
  count: number,
): Promise<BatchItemResult[]> {
  const rows = await db
    .selectFrom('batch_items')
    .leftJoin('intents', 'intents.id', 'batch_items.intent_id')
    .select([
      'batch_items.item_index',
      'batch_items.state',
      'batch_items.intent_id',
      'batch_items.error_code',
      'batch_items.error_message',
      'intents.status',
      'intents.tx_hash',
      'intents.reason',
    ])
    .where('batch_items.batch_id', '=', batchId)
    .where('batch_items.item_index', '>=', fromIndex)
    .orderBy('batch_items.item_index')
    .limit(count)
    .execute();
  return rows.map((row) => ({
    index: Number(row.item_index),
    status: itemStatus(row.state, row.status),
    intentId: row.intent_id,
    txHash: row.tx_hash ?? null,
    errorCode: row.error_code,
    reason: row.error_message ?? row.reason ?? null,
  }));
}

/** How many items are in each outcome, for progress and the API. */
export async function batchOutcomeCounts(
  db: Kysely<Schema>,
  batchId: string,
): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('batch_items')
    .leftJoin('intents', 'intents.id', 'batch_items.intent_id')
    .select(['batch_items.state', 'intents.status', (eb) => eb.fn.countAll<number>().as('count')])
    .where('batch_items.batch_id', '=', batchId)
    .groupBy(['batch_items.state', 'intents.status'])
    .execute();
  const counts: Record<string, number> = {};
  for (const row of rows) {
    const key = itemStatus(row.state, row.status);
    counts[key] = (counts[key] ?? 0) + Number(row.count);
  }
  return counts;
}

/**
 * The most items of a batch that were active at once, from each item's recorded window (admitted
 * to outcome recorded): a measurement of the concurrency bound, not an assumption.
 */
export async function mostItemsActiveAtOnce(db: Kysely<Schema>, batchId: string): Promise<number> {
  const rows = await db
    .selectFrom('batch_items')
    .select(['started_at', 'finished_at'])
    .where('batch_id', '=', batchId)
    .where('started_at', 'is not', null)
    .execute();
  const events = rows
    .flatMap((row) => [
      { at: new Date(row.started_at!).getTime(), change: 1 },
      { at: new Date(row.finished_at ?? Date.now()).getTime(), change: -1 },
    ])
    // An item that ended in the same millisecond another started was over first.
    .sort((a, b) => a.at - b.at || a.change - b.change);
  let active = 0;
  let most = 0;
  for (const event of events) most = Math.max(most, (active += event.change));
  return most;
}

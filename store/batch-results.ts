import { metadataOfColumn } from './caller-references';
import type { Kysely } from 'kysely';
import type { BatchItemOutcome } from '../domain/batch';
import type { IntentStatus } from '../domain/intent';
import type { ReasonCode } from '../domain/reason-codes';
import type { BatchItemState, Schema } from './schema';

// What a batch's items came to: each item's result, the counts by outcome, and how many ran at
// once.

export interface BatchItemResult {
  index: number;
  /** The outcome once ended; before, `pending` (not started) or the intent's current status. */
  status: BatchItemOutcome | 'pending' | 'running';
  intentId: string | null;
  txHash: string | null;
  /** The refusal's code, for an item refused at admission. */
  errorCode: string | null;
  /** Its intent's reason code, once it has an intent. */
  reasonCode: ReasonCode | null;
  reason: string | null;
  /** The caller's reference and metadata the item was submitted with (null, {}: none). */
  reference: string | null;
  metadata: Record<string, string>;
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
      'batch_items.reference',
      'batch_items.metadata',
      'intents.status',
      'intents.tx_hash',
      'intents.reason',
      'intents.reason_code',
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
    reasonCode: row.reason_code ?? null,
    reason: row.error_message ?? row.reason ?? null,
    reference: row.reference ?? null,
    metadata: metadataOfColumn(row.metadata ?? null) ?? {},
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

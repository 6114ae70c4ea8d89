import type { Kysely } from 'kysely';
import { metadataOfColumn } from './caller-references';
import type { BatchItemOutcome } from '../domain/batch';
import type { BatchItemState, Schema } from './schema';

// A batch's items: each as the caller submitted it, its state, and its intent once admitted.

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
  reference: string | null;
  metadata: Record<string, string> | null;
  maxFeePerGas: bigint | null;
}

export async function batchItems(
  db: Kysely<Schema>,
  batchId: string,
  fromIndex: number,
  count: number,
): Promise<BatchItemRow[]> {
  const rows = await db
    .selectFrom('batch_items')
    // Every column there is: a schema from before migration 0029 has no reference or metadata.
    .selectAll()
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
    reference: row.reference ?? null,
    metadata: metadataOfColumn(row.metadata ?? null),
    maxFeePerGas: row.max_fee_per_gas ? BigInt(row.max_fee_per_gas) : null,
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

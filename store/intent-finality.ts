import type { Kysely } from 'kysely';
import type { Intent } from '../domain/intent';
import type { Database } from './database';
import { intentFromRow } from './intents';
import type { Schema } from './schema';
import { recordStateChange } from './webhook-outbox';

/**
 * Confirmed intents on `chainId` whose block is at or below `finalizedBlock` and that are not
 * marked final yet, oldest block first, at most `limit`.
 */
export async function confirmedAwaitingFinality(
  db: Kysely<Schema>,
  chainId: number,
  finalizedBlock: bigint,
  limit: number,
): Promise<Intent[]> {
  const rows = await db
    .selectFrom('intents')
    .selectAll()
    .where('status', '=', 'confirmed')
    .where('chain_id', '=', chainId)
    .where('finalized_at', 'is', null)
    .where('block_number', '<=', finalizedBlock.toString())
    .orderBy('block_number')
    .limit(limit)
    .execute();
  return rows.map(intentFromRow);
}

/**
 * Marks a confirmed intent final and records `intent.finalized` for its webhooks, in one
 * transaction; false when it already was (another sweep got there first).
 */
export async function markIntentFinalized(
  database: Database,
  intent: Intent,
  now: Date,
): Promise<boolean> {
  return database.transaction(async (trx) => {
    const updated = await trx
      .updateTable('intents')
      .set({ finalized_at: now.toISOString() })
      .where('id', '=', intent.id)
      .where('status', '=', 'confirmed')
      .where('finalized_at', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    await recordStateChange(
      trx,
      { ...intent, finalizedAt: now },
      intent.status,
      now,
      'intent.finalized',
    );
    return true;
  });
}

/**
 * A confirmed intent's transaction, reorged away and mined again in `blockNumber`: its finality
 * is now that block's. Only while it is not final (a compare-and-set on both).
 */
export async function moveToBlock(
  db: Kysely<Schema>,
  intentId: string,
  blockNumber: bigint,
): Promise<void> {
  await db
    .updateTable('intents')
    .set({ block_number: blockNumber.toString() })
    .where('id', '=', intentId)
    .where('status', '=', 'confirmed')
    .where('finalized_at', 'is', null)
    .execute();
}

import type { Kysely } from 'kysely';
import { IntentStatus, notYetSignedStatuses, terminalStatuses } from '../domain/intent';
import { preparedAhead, walletTurnAfter, type WalletTurn } from '../domain/wallet-turn';
import { findBatchItem } from './batch-items';
import type { Schema } from './schema';

/**
 * A batch's items of one sending wallet sign in input order, so their nonces follow the input
 * (domain/wallet-turn.ts has the rule). An item signs only in its turn, so the closest earlier
 * items that did not end unsigned say it for all before them.
 */
export async function walletTurnOf(
  db: Kysely<Schema>,
  batchId: string,
  index: number,
): Promise<WalletTurn> {
  const item = await findBatchItem(db, batchId, index);
  if (!item?.from) return 'sign';
  const closest = await db
    .selectFrom('batch_items as item')
    .leftJoin('intents as intent', 'intent.id', 'item.intent_id')
    .select(['intent.nonce', 'intent.status'])
    .where('item.batch_id', '=', batchId)
    .where('item.chain_id', '=', item.chainId)
    .where('item.from_address', '=', item.from)
    .where('item.item_index', '<', index)
    .where('item.state', 'not in', ['rejected', 'skipped'])
    // Passed over: an item whose intent ended without ever being signed.
    .where((eb) =>
      eb.or([
        eb('item.intent_id', 'is', null),
        eb('intent.nonce', 'is not', null),
        eb('intent.status', 'not in', [...terminalStatuses]),
      ]),
    )
    .orderBy('item.item_index', 'desc')
    .limit(preparedAhead)
    .execute();
  return walletTurnAfter(
    closest.map((row) => ({
      signed: row.nonce !== null,
      status: row.status as IntentStatus | null,
    })),
  );
}

/**
 * The closest later items of `index`'s wallet that have been admitted and not signed yet, at most
 * `count`, in input order: the ones whose turns can move when `index` holds, signs or ends.
 */
export async function laterUnsigned(
  db: Kysely<Schema>,
  batchId: string,
  index: number,
  count: number,
): Promise<{ intentId: string; index: number }[]> {
  const item = await findBatchItem(db, batchId, index);
  if (!item?.from) return [];
  const rows = await db
    .selectFrom('batch_items as item')
    .innerJoin('intents as intent', 'intent.id', 'item.intent_id')
    .select(['intent.id', 'item.item_index'])
    .where('item.batch_id', '=', batchId)
    .where('item.chain_id', '=', item.chainId)
    .where('item.from_address', '=', item.from)
    .where('item.item_index', '>', index)
    .where('intent.status', 'in', [...notYetSignedStatuses])
    .orderBy('item.item_index')
    .limit(count)
    .execute();
  return rows.map((row) => ({ intentId: row.id, index: Number(row.item_index) }));
}

/**
 * Whom an item of a wallet tells once it is held, signed or ended unsigned: the closest later
 * items of its wallet that have not signed (only their turns can move with it), each with the
 * turn it has now, unless that is `wait`. Items not admitted yet find their turn themselves.
 */
export async function turnsToTell(
  db: Kysely<Schema>,
  batchId: string,
  index: number,
): Promise<{ intentId: string; turn: WalletTurn }[]> {
  const told = await Promise.all(
    (await laterUnsigned(db, batchId, index, preparedAhead)).map(async (next) => ({
      intentId: next.intentId,
      turn: await walletTurnOf(db, batchId, next.index),
    })),
  );
  return told.filter(({ turn }) => turn !== 'wait');
}

/**
 * Batch items of a named wallet in running batches whose intents have waited for their turn
 * (authorized, or held) since before `cutoff`: the ones a lost word may have left waiting.
 */
export async function itemsWaitingForTurnBefore(
  db: Kysely<Schema>,
  cutoff: Date,
): Promise<{ batchId: string; index: number; intentId: string }[]> {
  const rows = await db
    .selectFrom('batch_items as item')
    .innerJoin('batches as batch', 'batch.id', 'item.batch_id')
    .innerJoin('intents as intent', 'intent.id', 'item.intent_id')
    .select(['item.batch_id', 'item.item_index', 'intent.id'])
    .where('batch.status', '=', 'running')
    .where('item.state', '=', 'started')
    .where('item.from_address', 'is not', null)
    .where('intent.status', 'in', [IntentStatus.authorized, IntentStatus.held])
    .where('intent.updated_at', '<=', cutoff.toISOString())
    .limit(1000)
    .execute();
  return rows.map((row) => ({
    batchId: row.batch_id,
    index: Number(row.item_index),
    intentId: row.id,
  }));
}

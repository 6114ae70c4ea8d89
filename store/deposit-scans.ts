import type { Kysely } from 'kysely';
import type { Schema } from './schema';

// How far each chain has been read for deposits: a scan reads on from there.

/** The first block of the chain not yet read for deposits; undefined before the first scan. */
export async function nextScanBlock(
  db: Kysely<Schema>,
  chainId: number,
): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('deposit_scans')
    .select('next_block')
    .where('chain_id', '=', chainId)
    .executeTakeFirst();
  return row === undefined ? undefined : BigInt(row.next_block);
}

/** Blocks before `next` are read (in the transaction that recorded what they held). */
export async function advanceScan(
  trx: Kysely<Schema>,
  chainId: number,
  next: bigint,
  now: Date,
): Promise<void> {
  await trx
    .insertInto('deposit_scans')
    .values({ chain_id: chainId, next_block: next.toString(), updated_at: now.toISOString() })
    .onConflict((conflict) =>
      conflict
        .column('chain_id')
        .doUpdateSet({ next_block: next.toString(), updated_at: now.toISOString() }),
    )
    .execute();
}

/**
 * Scans of the chain start at `block` unless they already read on from elsewhere: called as a
 * deposit address is handed out, with the chain's head then, so nothing sent to it is missed.
 */
export async function startScanAt(
  db: Kysely<Schema>,
  chainId: number,
  block: bigint,
  now: Date,
): Promise<void> {
  await db
    .insertInto('deposit_scans')
    .values({ chain_id: chainId, next_block: block.toString(), updated_at: now.toISOString() })
    .onConflict((conflict) => conflict.column('chain_id').doNothing())
    .execute();
}

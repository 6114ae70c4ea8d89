import type { Kysely, Selectable } from 'kysely';
import type { Deposit, DepositStatus } from '../domain/deposit';
import { systemAccountOwner, type Schema } from './schema';
import { fromTimestamp, timestampOrNull } from './column-types';
import type { Database } from './database';
import type { DepositsTable } from './deposit-tables';
import { openAccount, post } from './ledger';
import { metadataOfColumn } from './caller-references';

// Deposit addresses and what reached them: each transfer one row, keyed by (chain, transaction,
// log), so seeing it again (a second watcher, a scan re-run after a crash) changes nothing.

export const depositFromRow = (row: Selectable<DepositsTable>): Deposit => ({
  id: row.id,
  chainId: row.chain_id,
  txHash: row.tx_hash,
  logIndex: row.log_index,
  address: row.address,
  tenantId: row.tenant_id,
  asset: row.asset,
  amount: BigInt(row.amount),
  blockNumber: BigInt(row.block_number),
  blockHash: row.block_hash,
  status: row.status,
  detectedAt: fromTimestamp(row.detected_at),
  creditedAt: timestampOrNull(row.credited_at),
  reference: row.reference ?? null,
  metadata: metadataOfColumn(row.metadata ?? null),
});

/** A transfer as a scan found it. */
export type SeenDeposit = Omit<Deposit, 'detectedAt' | 'creditedAt'>;

/**
 * Records a transfer seen in a block: a new one as `status`; one already known keeps its row —
 * moved to the block it is in now if a reorg moved it, and detected again if it had been dropped.
 * The row as it stands after, and whether it is new.
 */
export async function recordSeenDeposit(
  trx: Kysely<Schema>,
  seen: SeenDeposit,
  now: Date,
): Promise<{ deposit: Deposit; isNew: boolean }> {
  const at = now.toISOString();
  const inserted = await trx
    .insertInto('deposits')
    .values({
      id: seen.id,
      chain_id: seen.chainId,
      tx_hash: seen.txHash,
      log_index: seen.logIndex,
      address: seen.address,
      tenant_id: seen.tenantId,
      asset: seen.asset,
      amount: seen.amount.toString(),
      block_number: seen.blockNumber.toString(),
      block_hash: seen.blockHash,
      status: seen.status,
      detected_at: at,
      credited_at: null,
      updated_at: at,
      // Its address's, as the scan read them with the addresses (none: null).
      reference: seen.reference ?? null,
      metadata: seen.metadata ? JSON.stringify(seen.metadata) : null,
    })
    .onConflict((conflict) => conflict.columns(['chain_id', 'tx_hash', 'log_index']).doNothing())
    .executeTakeFirst();
  const isNew = Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  if (!isNew) {
    await trx
      .updateTable('deposits')
      .set({
        block_number: seen.blockNumber.toString(),
        block_hash: seen.blockHash,
        status: 'detected',
        updated_at: at,
      })
      .where('chain_id', '=', seen.chainId)
      .where('tx_hash', '=', seen.txHash)
      .where('log_index', '=', seen.logIndex)
      .where((eb) =>
        eb.or([
          eb('status', '=', 'dropped'),
          eb.and([eb('status', '=', 'detected'), eb('block_hash', '!=', seen.blockHash)]),
        ]),
      )
      .execute();
  }
  const row = await trx
    .selectFrom('deposits')
    .selectAll()
    .where('chain_id', '=', seen.chainId)
    .where('tx_hash', '=', seen.txHash)
    .where('log_index', '=', seen.logIndex)
    .executeTakeFirstOrThrow();
  return { deposit: depositFromRow(row), isNew };
}

/** Detected deposits on the chain whose block is at or below `finalBlock`, oldest first. */
export async function depositsAwaitingFinality(
  db: Kysely<Schema>,
  chainId: number,
  finalBlock: bigint,
  limit: number,
): Promise<Deposit[]> {
  const rows = await db
    .selectFrom('deposits')
    .selectAll()
    .where('status', '=', 'detected')
    .where('chain_id', '=', chainId)
    .where('block_number', '<=', finalBlock.toString())
    .orderBy('block_number')
    .limit(limit)
    .execute();
  return rows.map(depositFromRow);
}

/**
 * Credits a detected deposit to its tenant's book, in one transaction with the status change:
 * `@system/deposits` −x, the tenant's `available` +x. False when it was not detected in that block
 * any more (credited by another sweep, dropped, moved): nothing is posted.
 */
export async function creditDeposit(
  database: Database,
  deposit: Deposit,
  book: string,
  now: Date,
  also?: (trx: Kysely<Schema>) => Promise<void>,
): Promise<boolean> {
  return database.transaction(async (trx) => {
    const updated = await trx
      .updateTable('deposits')
      .set({ status: 'credited', credited_at: now.toISOString(), updated_at: now.toISOString() })
      .where('id', '=', deposit.id)
      .where('status', '=', 'detected')
      .where('block_hash', '=', deposit.blockHash)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    await openAccount(trx, deposit.tenantId, book);
    await post(
      database,
      trx,
      'deposit',
      null,
      [
        { owner: systemAccountOwner, kind: 'deposits', asset: book, amount: -deposit.amount },
        { owner: deposit.tenantId, kind: 'available', asset: book, amount: deposit.amount },
      ],
      now,
    );
    await also?.(trx);
    return true;
  });
}

/** A detected deposit a reorg took out of its block (and the node no longer has): `dropped`. */
export async function markDepositDropped(
  db: Kysely<Schema>,
  deposit: Deposit,
  now: Date,
): Promise<boolean> {
  const updated = await db
    .updateTable('deposits')
    .set({ status: 'dropped', updated_at: now.toISOString() })
    .where('id', '=', deposit.id)
    .where('status', '=', 'detected')
    .where('block_hash', '=', deposit.blockHash)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

export async function listDeposits(
  db: Kysely<Schema>,
  tenantId: string,
  options: { limit: number; status?: DepositStatus },
): Promise<Deposit[]> {
  let query = db.selectFrom('deposits').selectAll().where('tenant_id', '=', tenantId);
  if (options.status) query = query.where('status', '=', options.status);
  const rows = await query.orderBy('detected_at', 'desc').limit(options.limit).execute();
  return rows.map(depositFromRow);
}

/** Whether any deposit on the chain waits for finality (so the final block is worth asking). */
export async function anyAwaitingFinality(db: Kysely<Schema>, chainId: number): Promise<boolean> {
  const row = await db
    .selectFrom('deposits')
    .select('id')
    .where('status', '=', 'detected')
    .where('chain_id', '=', chainId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Every deposit on the chain mined by `maxBlock` and not dropped, for reconciliation. */
export async function depositsMinedBy(
  db: Kysely<Schema>,
  chainId: number,
  maxBlock: bigint,
): Promise<Pick<Deposit, 'address' | 'asset' | 'amount' | 'status'>[]> {
  const rows = await db
    .selectFrom('deposits')
    .select(['address', 'asset', 'amount', 'status'])
    .where('chain_id', '=', chainId)
    .where('status', '!=', 'dropped')
    .where('block_number', '<=', maxBlock.toString())
    .execute();
  return rows.map((row) => ({ ...row, amount: BigInt(row.amount) }));
}

/**
 * What `@system/deposits` has given out in each of `books` (posted to tenants): a system account
 * keeps no balance row, its balance is the sum of its postings.
 */
export async function postedOutOfDeposits(
  db: Kysely<Schema>,
  books: readonly string[],
): Promise<Map<string, bigint>> {
  if (books.length === 0) return new Map();
  const rows = await db
    .selectFrom('postings')
    .select(['asset', 'amount'])
    .where('owner', '=', systemAccountOwner)
    .where('kind', '=', 'deposits')
    .where('asset', 'in', [...books])
    .execute();
  const out = new Map<string, bigint>();
  for (const row of rows) out.set(row.asset, (out.get(row.asset) ?? 0n) - BigInt(row.amount));
  return out;
}

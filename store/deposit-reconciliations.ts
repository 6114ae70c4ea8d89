import type { Kysely } from 'kysely';
import {
  reconciliationView,
  type DepositReconciliation,
  type ReconciliationView,
} from '../domain/deposit-reconciliation';
import { fromTimestamp } from './column-types';
import type { Schema } from './schema';

// Each chain's last deposit reconciliation, kept for /readyz and the metric to read.

export async function saveReconciliation(
  db: Kysely<Schema>,
  reconciliation: DepositReconciliation,
  now: Date,
): Promise<void> {
  const row = {
    block_number: reconciliation.blockNumber.toString(),
    differences: reconciliation.differences,
    report: JSON.stringify(reconciliationView(reconciliation)),
    checked_at: now.toISOString(),
  };
  await db
    .insertInto('deposit_reconciliations')
    .values({ chain_id: reconciliation.chainId, ...row })
    .onConflict((conflict) => conflict.column('chain_id').doUpdateSet(row))
    .execute();
}

/** The last reconciliation of every chain that had one. */
export async function lastReconciliations(
  db: Kysely<Schema>,
): Promise<
  { chainId: number; differences: number; checkedAt: Date; report: ReconciliationView }[]
> {
  const rows = await db.selectFrom('deposit_reconciliations').selectAll().execute();
  return rows.map((row) => ({
    chainId: row.chain_id,
    differences: row.differences,
    checkedAt: fromTimestamp(row.checked_at),
    report: JSON.parse(row.report) as ReconciliationView,
  }));
}

import type { Kysely } from 'kysely';
import type { RecipientEntry } from '../domain/payment-policy';
import type { Schema } from './schema';

// The recipients on a tenant's allow- and deny-lists, per chain, as they stand (each change is
// also a policy version: policies.ts).

const recipientFromRow = (row: {
  chain_id: number;
  address: string;
  list: 'allow' | 'deny';
  label: string;
}): RecipientEntry => ({
  chainId: Number(row.chain_id),
  address: row.address,
  list: row.list,
  label: row.label,
});

export async function findRecipient(
  db: Kysely<Schema>,
  tenantId: string,
  chainId: number,
  address: string,
): Promise<RecipientEntry | undefined> {
  const row = await db
    .selectFrom('policy_recipients')
    .select(['chain_id', 'address', 'list', 'label'])
    .where('tenant_id', '=', tenantId)
    .where('chain_id', '=', chainId)
    .where('address', '=', address)
    .executeTakeFirst();
  return row && recipientFromRow(row);
}

export async function listRecipients(
  db: Kysely<Schema>,
  tenantId: string,
  chainId?: number,
): Promise<RecipientEntry[]> {
  let query = db
    .selectFrom('policy_recipients')
    .select(['chain_id', 'address', 'list', 'label'])
    .where('tenant_id', '=', tenantId);
  if (chainId !== undefined) query = query.where('chain_id', '=', chainId);
  const rows = await query.orderBy('chain_id').orderBy('list').orderBy('address').execute();
  return rows.map(recipientFromRow);
}

/** Puts `entry` on its list (moving it from the other one if it was there). */
export async function putRecipient(
  trx: Kysely<Schema>,
  tenantId: string,
  entry: RecipientEntry,
  now: Date,
): Promise<void> {
  await trx
    .insertInto('policy_recipients')
    .values({
      tenant_id: tenantId,
      chain_id: entry.chainId,
      address: entry.address,
      list: entry.list,
      label: entry.label,
      created_at: now.toISOString(),
    })
    .onConflict((conflict) =>
      conflict
        .columns(['tenant_id', 'chain_id', 'address'])
        .doUpdateSet({ list: entry.list, label: entry.label, created_at: now.toISOString() }),
    )
    .execute();
}

export async function deleteRecipient(
  trx: Kysely<Schema>,
  tenantId: string,
  chainId: number,
  address: string,
): Promise<void> {
  await trx
    .deleteFrom('policy_recipients')
    .where('tenant_id', '=', tenantId)
    .where('chain_id', '=', chainId)
    .where('address', '=', address)
    .execute();
}

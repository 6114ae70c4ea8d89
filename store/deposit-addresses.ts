import type { Kysely, Selectable } from 'kysely';
import { metadataOfColumn } from './caller-references';
import { fromTimestamp } from './column-types';
import type { DepositAddressesTable } from './deposit-tables';
import type { Schema } from './schema';

// Tenants' deposit addresses: one per (chain, tenant, index), worked out from the chain's factory.

export interface DepositAddress {
  chainId: number;
  address: string;
  tenantId: string;
  index: number;
  salt: string;
  factory: string;
  createdAt: Date;
  /** The tenant's reference and metadata for it, copied to each deposit found at it. */
  reference?: string | null;
  metadata?: Record<string, string> | null;
}

const addressFromRow = (row: Selectable<DepositAddressesTable>): DepositAddress => ({
  chainId: row.chain_id,
  address: row.address,
  tenantId: row.tenant_id,
  index: row.address_index,
  salt: row.salt,
  factory: row.factory,
  createdAt: fromTimestamp(row.created_at),
  reference: row.reference ?? null,
  metadata: metadataOfColumn(row.metadata ?? null),
});

/**
 * The tenant's address of `index` on the chain, stored once (the same on every call); a
 * reference or metadata given sets the address's, for the deposits found from then on.
 */
export async function ensureDepositAddress(
  db: Kysely<Schema>,
  address: Omit<DepositAddress, 'createdAt'>,
  now: Date,
): Promise<DepositAddress> {
  const marks = {
    ...(address.reference != null && { reference: address.reference }),
    ...(address.metadata != null && { metadata: JSON.stringify(address.metadata) }),
  };
  await db
    .insertInto('deposit_addresses')
    .values({
      chain_id: address.chainId,
      address: address.address,
      tenant_id: address.tenantId,
      address_index: address.index,
      salt: address.salt,
      factory: address.factory,
      created_at: now.toISOString(),
      ...marks,
    })
    .onConflict((conflict) =>
      Object.keys(marks).length > 0
        ? conflict.columns(['chain_id', 'address']).doUpdateSet(marks)
        : conflict.columns(['chain_id', 'address']).doNothing(),
    )
    .execute();
  const row = await db
    .selectFrom('deposit_addresses')
    .selectAll()
    .where('chain_id', '=', address.chainId)
    .where('address', '=', address.address)
    .executeTakeFirstOrThrow();
  return addressFromRow(row);
}

export async function depositAddressesOfTenant(
  db: Kysely<Schema>,
  tenantId: string,
): Promise<DepositAddress[]> {
  const rows = await db
    .selectFrom('deposit_addresses')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('chain_id')
    .orderBy('address_index')
    .execute();
  return rows.map(addressFromRow);
}

/** Every deposit address on the chain, by address in lower case. */
export async function depositAddressesOnChain(
  db: Kysely<Schema>,
  chainId: number,
): Promise<Map<string, DepositAddress>> {
  const rows = await db
    .selectFrom('deposit_addresses')
    .selectAll()
    .where('chain_id', '=', chainId)
    .execute();
  return new Map(rows.map((row) => [row.address.toLowerCase(), addressFromRow(row)]));
}

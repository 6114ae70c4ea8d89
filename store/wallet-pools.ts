import type { Kysely } from 'kysely';
import { operatorOwner } from '../domain/custody';
import type { Schema } from './schema';

/**
 * Which hot wallets may sign for whom: a tenant's pool per chain (no pool: every wallet), and
 * wallets retired at run time (they sign nothing new and finish what they have). A chain's
 * treasury is registered too (its nonces are kept like any wallet's) but is no hot wallet.
 */

/** The wallets `tenantId` may send from on the chain; null: every wallet. */
export async function tenantPool(
  db: Kysely<Schema>,
  tenantId: string,
  chainId: number,
): Promise<string[] | null> {
  const rows = await db
    .selectFrom('tenant_wallets')
    .select('address')
    .where('tenant_id', '=', tenantId)
    .where('chain_id', '=', chainId)
    .orderBy('address')
    .execute();
  return rows.length === 0 ? null : rows.map((row) => row.address);
}

/** Sets the tenant's pool on the chain (null: every wallet). Call inside a transaction. */
export async function setTenantPool(
  trx: Kysely<Schema>,
  tenantId: string,
  chainId: number,
  addresses: readonly string[] | null,
): Promise<void> {
  await trx
    .deleteFrom('tenant_wallets')
    .where('tenant_id', '=', tenantId)
    .where('chain_id', '=', chainId)
    .execute();
  if (addresses === null) return;
  await trx
    .insertInto('tenant_wallets')
    .values(addresses.map((address) => ({ tenant_id: tenantId, chain_id: chainId, address })))
    .execute();
}

/**
 * Retires the wallet (`retired`), or puts it back to work; false if the relayer has no such wallet.
 */
export async function setWalletRetired(
  db: Kysely<Schema>,
  wallet: { chainId: number; address: string },
  retired: boolean,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('wallets')
    .set({ retired_at: retired ? now.toISOString() : null })
    .where('chain_id', '=', wallet.chainId)
    .where('address', '=', wallet.address)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The chain's retired wallets. */
export async function retiredWallets(db: Kysely<Schema>, chainId: number): Promise<Set<string>> {
  const rows = await db
    .selectFrom('wallets')
    .select('address')
    .where('chain_id', '=', chainId)
    .where('retired_at', 'is not', null)
    .execute();
  return new Set(rows.map((row) => row.address));
}

/** The registered wallets of the chain `tenantId` may send from now: in its pool, not retired. */
export async function usableWallets(
  db: Kysely<Schema>,
  tenantId: string,
  chainId: number,
): Promise<string[]> {
  const [pool, active] = await Promise.all([
    tenantPool(db, tenantId, chainId),
    activeHotWallets(db, chainId),
  ]);
  return pool === null ? active : active.filter((address) => pool.includes(address));
}

async function activeHotWallets(db: Kysely<Schema>, chainId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('wallets')
    .select('address')
    .where('chain_id', '=', chainId)
    .where('retired_at', 'is', null)
    .where('role', '=', 'hot')
    .execute();
  return rows.map((row) => row.address);
}

/**
 * The usable wallets of the chain that only `tenantId` may send from: in its pool, and in no
 * other tenant's. A tenant without a pool on the chain may use every wallet, so while one
 * exists no wallet is anyone's own. What a contract call may be sent from: it can touch whatever
 * the wallet holds or has approved, so never another tenant's funds.
 */
export async function exclusiveWallets(
  db: Kysely<Schema>,
  tenantId: string,
  chainId: number,
): Promise<string[]> {
  const [pool, active, tenants, pooled] = await Promise.all([
    tenantPool(db, tenantId, chainId),
    activeHotWallets(db, chainId),
    // The operators' own owner (top-ups) sends from the treasury, never from a hot wallet.
    db
      .selectFrom('tenants')
      .select('id')
      .where('id', 'not in', [tenantId, operatorOwner])
      .execute(),
    db
      .selectFrom('tenant_wallets')
      .select(['tenant_id', 'address'])
      .where('chain_id', '=', chainId)
      .where('tenant_id', '!=', tenantId)
      .execute(),
  ]);
  if (pool === null) return [];
  const withPool = new Set(pooled.map((row) => row.tenant_id));
  if (tenants.some((tenant) => !withPool.has(tenant.id))) return [];
  const shared = new Set(pooled.map((row) => row.address));
  return active.filter((address) => pool.includes(address) && !shared.has(address));
}

/** The chains the relayer has hot wallets on (its workers register them at start). */
export async function servedChains(db: Kysely<Schema>): Promise<number[]> {
  const rows = await db
    .selectFrom('wallets')
    .select('chain_id')
    .where('role', '=', 'hot')
    .distinct()
    .orderBy('chain_id')
    .execute();
  return rows.map((row) => row.chain_id);
}

/** Every hot wallet the relayer registered on the chain, retired ones included. */
export async function registeredWallets(db: Kysely<Schema>, chainId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('wallets')
    .select('address')
    .where('chain_id', '=', chainId)
    .where('role', '=', 'hot')
    .orderBy('address')
    .execute();
  return rows.map((row) => row.address);
}

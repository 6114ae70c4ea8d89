import { existsSync } from 'node:fs';
import { openDatabase, sqliteFileOf, type Database } from '../store/database';
import { nativeBookOf } from '../domain/ledger-book';
import { createTenant, tenantBalance, type TenantBalance } from '../store/ledger';
import { depositAsset, servedChain } from './assets';

/**
 * The SQLite file `databaseUrl` names when it is not there (undefined when it is, or for
 * PostgreSQL): a tool that reads or administers a running relayer checks this first, since
 * opening a mistyped or unset DATABASE_URL would create a new, empty database.
 */
export function missingSqliteFile(databaseUrl: string): string | undefined {
  const file = sqliteFileOf(databaseUrl);
  return file !== undefined && !existsSync(file) ? file : undefined;
}

/** Opens the relayer's books at `databaseUrl` for `work` (migrated first), closed after. */
export async function withBooks<T>(
  databaseUrl: string,
  work: (database: Database) => Promise<T>,
): Promise<T> {
  const database = await openDatabase(databaseUrl);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

export interface TenantSetup {
  id: string;
  name: string;
  /** Its open-intent limit; unset: the relayer's default. */
  maxInFlight?: number;
  /** Credited to its book of the chain's native coin, in wei. */
  deposit?: { chainId: number; wei: bigint };
}

/**
 * Creates a tenant (nothing changes if it exists), credits a deposit, returns its balance in the
 * native coin of the deposit's chain (none: zero).
 */
export async function setUpTenant(
  database: Database,
  tenant: TenantSetup,
  now: Date,
): Promise<TenantBalance> {
  // A deposit on a chain the relayer does not serve is refused before the tenant is created.
  if (tenant.deposit) await servedChain(database, tenant.deposit.chainId);
  await createTenant(database, tenant, now);
  if (!tenant.deposit) return { available: 0n, held: 0n };
  const { chainId, wei } = tenant.deposit;
  if (wei > 0n) {
    return (
      await depositAsset(
        database,
        { tenantId: tenant.id, chainId, asset: 'native', amount: wei },
        now,
      )
    ).balance;
  }
  const book = nativeBookOf(chainId);
  return (await tenantBalance(database.kysely, tenant.id, book)) ?? { available: 0n, held: 0n };
}

import { existsSync } from 'node:fs';
import { openDatabase, sqliteFileOf, type Database } from '../store/database';
import { createTenant, deposit, tenantBalance, type TenantBalance } from '../store/ledger';

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
  /** Credited to its balance, in wei. */
  deposit?: bigint;
}

/** Creates a tenant (nothing changes if it exists), credits a deposit, returns its balance. */
export async function setUpTenant(
  database: Database,
  tenant: TenantSetup,
  now: Date,
): Promise<TenantBalance> {
  await createTenant(database, tenant, now);
  if (tenant.deposit) await deposit(database, tenant.id, tenant.deposit, now);
  return (await tenantBalance(database.kysely, tenant.id))!;
}

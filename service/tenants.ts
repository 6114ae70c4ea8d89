import { requireUniqueReferences } from '../store/caller-references';
import { existsSync } from 'node:fs';
import { openDatabase, sqliteFileOf, type Database } from '../store/database';
import { nativeBookOf } from '../domain/ledger-book';
import { createTenant, deposit, tenantBalance, type TenantBalance } from '../store/ledger';
import { setFairnessWeight } from '../store/tenants';
import { servedChain } from './assets';
import { operatorOwner } from '../domain/custody';
import { InvalidIntentError } from '../domain/errors';

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
  /** Requests a minute for each of its keys without their own limit; unset: the API's default. */
  requestsPerMinute?: number;
  /** Its weight among tenants of one priority (domain/intent-priority.ts); unset: 1. */
  fairnessWeight?: number | null;
  /** Credited to its native book on the chain (unnamed: the one chain the relayer serves). */
  deposit?: { chainId?: number; wei: bigint };
}

/**
 * Creates a tenant (nothing changes if it exists) and credits its deposit; returns the chain it
 * was booked on and the book's balance (undefined: no deposit).
 */
export async function setUpTenant(
  database: Database,
  tenant: TenantSetup,
  now: Date,
): Promise<{ chainId: number; balance: TenantBalance } | undefined> {
  if (tenant.id === operatorOwner) {
    throw new InvalidIntentError([
      {
        field: 'tenantId',
        message: `${operatorOwner} is reserved for the relayer's operators (top-ups, operator webhooks): choose another tenant id`,
      },
    ]);
  }
  // The chain is settled before the tenant is created: a refused deposit writes nothing.
  const chainId = tenant.deposit && (await servedChain(database, tenant.deposit.chainId));
  await createTenant(database, tenant, now);
  if (!tenant.deposit || chainId === undefined) return undefined;
  const book = nativeBookOf(chainId);
  await deposit(database, tenant.id, tenant.deposit.wei, now, book);
  return { chainId, balance: (await tenantBalance(database.kysely, tenant.id, book))! };
}

/**
 * Sets the weight a tenant's workflows start with from now on (null: the default, 1); those
 * already started keep theirs. Refused for a tenant that does not exist.
 */
export async function weighTenant(
  database: Database,
  tenantId: string,
  weight: number | null,
): Promise<void> {
  if (!(await setFairnessWeight(database.kysely, tenantId, weight))) throw noTenant(tenantId);
}

/** Whether two of a tenant's intents may share a reference (domain/caller-reference.ts). */
export async function setUniqueReferences(
  database: Database,
  tenantId: string,
  unique: boolean,
): Promise<void> {
  if (!(await requireUniqueReferences(database.kysely, tenantId, unique))) {
    throw noTenant(tenantId);
  }
}

const noTenant = (tenantId: string) =>
  new InvalidIntentError([
    {
      field: 'tenantId',
      message: `no tenant ${tenantId}: create it first (relayer tenants create ${tenantId})`,
    },
  ]);

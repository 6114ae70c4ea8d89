import type { Kysely } from 'kysely';
import {
  bookLimitKeys,
  noPolicy,
  type BookLimits,
  type PaymentPolicy,
} from '../domain/payment-policy';
import type { Database } from './database';
import { fromTimestamp, type Schema } from './schema';

// Tenants' payment policies: every version kept, the latest in force. The recipients on their
// lists: policy-recipients.ts; what counts against a book's limits: policy-spend.ts; allowed
// contract calls: allowed-calls.ts.

/** Taken by every policy change and every hold of a tenant with limits: one at a time. */
export const lockTenantPolicy = (
  database: Database,
  trx: Kysely<Schema>,
  tenantId: string,
): Promise<void> => database.serialize(trx, `payment-relayer:policy:${tenantId}`);

interface PolicyDocument {
  limits: ({ book: string } & Partial<Record<(typeof bookLimitKeys)[number], string>>)[];
  allowListChains: number[];
}

function documentOf(policy: Pick<PaymentPolicy, 'limits' | 'allowListChains'>): PolicyDocument {
  return {
    limits: policy.limits.map((limits) => {
      const stored: PolicyDocument['limits'][number] = { book: limits.book };
      for (const key of bookLimitKeys) {
        if (limits[key] !== undefined) stored[key] = limits[key].toString();
      }
      return stored;
    }),
    allowListChains: policy.allowListChains,
  };
}

function policyFromRow(tenantId: string, version: number, document: string): PaymentPolicy {
  const parsed = JSON.parse(document) as PolicyDocument;
  return {
    tenantId,
    version,
    limits: parsed.limits.map((stored) => {
      const limits: BookLimits = { book: stored.book };
      for (const key of bookLimitKeys) {
        if (stored[key] !== undefined) limits[key] = BigInt(stored[key]);
      }
      return limits;
    }),
    allowListChains: parsed.allowListChains,
  };
}

/** The tenant's policy in force: its latest version (version 0, bounding nothing: none set). */
export async function policyInForce(db: Kysely<Schema>, tenantId: string): Promise<PaymentPolicy> {
  const row = await db
    .selectFrom('tenant_policies')
    .select(['version', 'document'])
    .where('tenant_id', '=', tenantId)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? policyFromRow(tenantId, Number(row.version), row.document) : noPolicy(tenantId);
}

/** One change of a policy: who made it, what it touched, what it was before and after. */
export interface PolicyChange {
  what: string;
  before: unknown;
  after: unknown;
}

export interface PolicyVersion {
  version: number;
  changedBy: string;
  change: PolicyChange;
  at: Date;
}

/** Writes `next` as the tenant's next version, under lockTenantPolicy; returns it. */
export async function writePolicyVersion(
  trx: Kysely<Schema>,
  next: PaymentPolicy,
  changedBy: string,
  change: PolicyChange,
  now: Date,
): Promise<PaymentPolicy> {
  const version = next.version + 1;
  await trx
    .insertInto('tenant_policies')
    .values({
      tenant_id: next.tenantId,
      version,
      document: JSON.stringify(documentOf(next)),
      changed_by: changedBy,
      change: JSON.stringify(change, (_key, value: unknown) =>
        typeof value === 'bigint' ? value.toString() : value,
      ),
      created_at: now.toISOString(),
    })
    .execute();
  return { ...next, version };
}

/** Every change of the tenant's policy, the latest first. */
export async function policyVersions(
  db: Kysely<Schema>,
  tenantId: string,
  limit: number,
): Promise<PolicyVersion[]> {
  const rows = await db
    .selectFrom('tenant_policies')
    .select(['version', 'changed_by', 'change', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .orderBy('version', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    version: Number(row.version),
    changedBy: row.changed_by,
    change: JSON.parse(row.change) as PolicyChange,
    at: fromTimestamp(row.created_at),
  }));
}

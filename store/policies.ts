import type { Kysely } from 'kysely';
import {
  bookLimitKeys,
  noPolicy,
  type BookLimits,
  type PaymentPolicy,
  type RecipientEntry,
} from '../domain/payment-policy';
import type { LedgerBook } from '../domain/ledger-book';
import type { AssetRef } from '../domain/asset';
import { IntentStatus } from '../domain/intent';
import type { Database } from './database';
import { fromTimestamp, type Schema } from './schema';

// Tenants' payment policies: every version kept (the latest in force), the recipients on their
// lists as they stand, and what counts against a book's rolling limits (allowed contract calls:
// allowed-calls.ts).

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

function policyOf(tenantId: string, version: number, document: string): PaymentPolicy {
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
  return row ? policyOf(tenantId, Number(row.version), row.document) : noPolicy(tenantId);
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

export interface BookOfIntents {
  tenantId: string;
  chainId: number;
  /** The intents' asset (`native` or the token's address) and the book it counts in. */
  asset: AssetRef;
  book: LedgerBook;
}

/**
 * What counts against a book's rolling windows, each after `since[window]`: every active hold (its
 * money may leave yet), every hold captured within the window (it left), and with `notYetHeld` the
 * intents admitted but not held yet (awaiting approval included). Counted from the rows themselves,
 * never from a counter, so nothing can drift; summed as bigint (SQLite holds amounts as text).
 */
export async function committedInBook(
  db: Kysely<Schema>,
  of: BookOfIntents,
  since: Partial<Record<'perDay' | 'perWeek', Date>>,
  notYetHeld: boolean,
): Promise<Partial<Record<'perDay' | 'perWeek', bigint>>> {
  const windows = (['perDay', 'perWeek'] as const).filter((window) => since[window]);
  if (windows.length === 0) return {};
  const earliest = Math.min(...windows.map((window) => since[window]!.getTime()));
  const [holds, admitted] = await Promise.all([
    db
      .selectFrom('holds')
      .select(['amount', 'status', 'updated_at'])
      .where('tenant_id', '=', of.tenantId)
      .where('asset', '=', of.book)
      .where((where) =>
        where.or([
          where('status', '=', 'active'),
          where.and([
            where('status', '=', 'captured'),
            where('updated_at', '>', new Date(earliest).toISOString()),
          ]),
        ]),
      )
      .execute(),
    notYetHeld
      ? db
          .selectFrom('intents')
          .select('amount')
          .where('tenant_id', '=', of.tenantId)
          .where('chain_id', '=', of.chainId)
          .where('asset', '=', of.asset)
          .where('status', 'in', [
            IntentStatus.awaitingApproval,
            IntentStatus.authorized,
            IntentStatus.settling,
          ])
          .execute()
      : [],
  ]);
  const always =
    admitted.reduce((sum, row) => sum + BigInt(row.amount), 0n) +
    holds
      .filter((row) => row.status === 'active')
      .reduce((sum, row) => sum + BigInt(row.amount), 0n);
  const counted: Partial<Record<'perDay' | 'perWeek', bigint>> = {};
  for (const window of windows) {
    const start = since[window]!.getTime();
    counted[window] = holds
      .filter((row) => row.status === 'captured' && fromTimestamp(row.updated_at).getTime() > start)
      .reduce((sum, row) => sum + BigInt(row.amount), always);
  }
  return counted;
}

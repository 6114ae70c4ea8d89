import type { Kysely } from 'kysely';
import { chainOfBook, isNativeBook, type LedgerBook } from '../domain/ledger-book';
import { InsufficientBalanceError, NoAccountError, UnknownTenantError } from '../domain/errors';
import type { Database } from './database';
import { findTenant } from './tenants';
import {
  systemAccountOwner,
  type Schema,
  type SystemAccountKind,
  type TenantAccountKind,
} from './schema';

/**
 * Per-tenant balances kept in double entry, per book: an asset on a chain (domain/ledger-book.ts: a
 * chain's native coin, each registered token), so what was deposited on a chain pays out there.
 * Tenant accounts (`available`, `held`) never go negative; the system's `funding` account goes
 * negative by what was deposited and `settled` grows by what was paid out, so the balances of each
 * book always sum to zero. Gas is in the chain's native coin: `fees` grows by what the hot wallets
 * burned, paid from the tenant's held fee (when tenants pay it) or by the `house` (negative).
 *
 *   deposit  funding −x  → available +x
 *   hold     available −x → held +x
 *            (tenant pays gas: also native available −f → held +f)
 *   capture  held −x      → settled +x
 *   release  held −x      → available +x
 *   gas      held −g (of f, the rest released) or house −g  → fees +g
 *   capture_reversed, gas_reversed  the two above the other way, to available
 * (holds, their ends and reversals: holds.ts)
 */
export interface Leg {
  owner: string;
  kind: TenantAccountKind | SystemAccountKind;
  asset: string;
  amount: bigint;
}

export async function post(
  database: Database,
  trx: Kysely<Schema>,
  entry: string,
  intentId: string | null,
  allLegs: Leg[],
  now: Date,
): Promise<void> {
  // A leg that moves nothing says nothing (a top-up holds nothing: its entries are its gas only).
  const legs = allLegs.filter((leg) => leg.amount !== 0n);
  if (legs.length === 0) return;
  // Lock tenant accounts in one global order so two entries on the same tenant cannot deadlock.
  // System accounts keep no balance row (their balance is the sum of their postings), so they
  // never become a row every capture in the system waits for.
  const tenantLegs = legs
    .filter((leg) => leg.owner !== systemAccountOwner)
    .sort((a, b) =>
      `${a.owner}/${a.asset}/${a.kind}`.localeCompare(`${b.owner}/${b.asset}/${b.kind}`),
    );
  for (const leg of tenantLegs) {
    const account = await database
      .forUpdate(
        trx
          .selectFrom('ledger_accounts')
          .select('balance')
          .where('owner', '=', leg.owner)
          .where('kind', '=', leg.kind)
          .where('asset', '=', leg.asset),
      )
      .executeTakeFirst();
    // Errors name the asset as people do: `native` (on the book's chain), a token by its book.
    const asset = isNativeBook(leg.asset) ? 'native' : leg.asset;
    if (!account) throw new NoAccountError(leg.owner, asset, chainOfBook(leg.asset) ?? 0);
    const balance = BigInt(account.balance) + leg.amount;
    if (balance < 0n) {
      throw new InsufficientBalanceError(leg.owner, BigInt(account.balance), -leg.amount, asset);
    }
    await trx
      .updateTable('ledger_accounts')
      .set({ balance: balance.toString() })
      .where('owner', '=', leg.owner)
      .where('kind', '=', leg.kind)
      .where('asset', '=', leg.asset)
      .execute();
  }
  await trx
    .insertInto('postings')
    .values(
      legs.map((leg) => ({
        entry,
        intent_id: intentId,
        owner: leg.owner,
        kind: leg.kind,
        asset: leg.asset,
        amount: leg.amount.toString(),
        created_at: now.toISOString(),
      })),
    )
    .execute();
}

export async function createTenant(
  database: Database,
  tenant: {
    id: string;
    name: string;
    maxInFlight?: number | null;
    requestsPerMinute?: number | null;
    fairnessWeight?: number | null;
  },
  now: Date,
): Promise<void> {
  await database.transaction(async (trx) => {
    await trx
      .insertInto('tenants')
      .values({
        id: tenant.id,
        name: tenant.name,
        max_in_flight: tenant.maxInFlight ?? null,
        requests_per_minute: tenant.requestsPerMinute ?? null,
        fairness_weight: tenant.fairnessWeight ?? null,
        created_at: now.toISOString(),
      })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
  });
}

/** A tenant's `available` and `held` accounts in `asset`, if it has none yet. */
export async function openAccount(
  trx: Kysely<Schema>,
  tenantId: string,
  asset: string,
): Promise<void> {
  await trx
    .insertInto('ledger_accounts')
    .values([
      { owner: tenantId, kind: 'available', asset, balance: '0' },
      { owner: tenantId, kind: 'held', asset, balance: '0' },
    ])
    .onConflict((conflict) => conflict.columns(['owner', 'kind', 'asset']).doNothing())
    .execute();
}

/** Whether the tenant keeps an account in `asset` (a deposit of it opens one). */
export async function hasAccount(
  db: Kysely<Schema>,
  tenantId: string,
  asset: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('ledger_accounts')
    .select('owner')
    .where('owner', '=', tenantId)
    .where('kind', '=', 'available')
    .where('asset', '=', asset)
    .executeTakeFirst();
  return row !== undefined;
}

/** Credits `amount` in `asset` (a book) to the tenant, opening its account in it if need be. */
export async function deposit(
  database: Database,
  tenantId: string,
  amount: bigint,
  now: Date,
  asset: LedgerBook,
): Promise<void> {
  await database.transaction(async (trx) => {
    if (!(await findTenant(trx, tenantId))) throw new UnknownTenantError(tenantId);
    await openAccount(trx, tenantId, asset);
    await post(
      database,
      trx,
      'deposit',
      null,
      [
        { owner: systemAccountOwner, kind: 'funding', asset, amount: -amount },
        { owner: tenantId, kind: 'available', asset, amount },
      ],
      now,
    );
  });
}

export interface TenantBalance {
  available: bigint;
  held: bigint;
}

/** The tenant's balance in `asset` (a book); undefined when it keeps no account in it. */
export async function tenantBalance(
  db: Kysely<Schema>,
  tenantId: string,
  asset: LedgerBook,
): Promise<TenantBalance | undefined> {
  return (await tenantBalances(db, tenantId)).get(asset);
}

/** Every book the tenant keeps an account in → its balance. */
export async function tenantBalances(
  db: Kysely<Schema>,
  tenantId: string,
): Promise<Map<string, TenantBalance>> {
  const rows = await db
    .selectFrom('ledger_accounts')
    .select(['kind', 'asset', 'balance'])
    .where('owner', '=', tenantId)
    .orderBy('asset')
    .execute();
  const balances = new Map<string, TenantBalance>();
  for (const row of rows) {
    const balance = balances.get(row.asset) ?? { available: 0n, held: 0n };
    balance[row.kind as TenantAccountKind] = BigInt(row.balance);
    balances.set(row.asset, balance);
  }
  return balances;
}

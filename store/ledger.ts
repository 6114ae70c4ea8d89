import type { Kysely } from 'kysely';
import { InsufficientBalanceError, UnknownTenantError } from '../domain/errors';
import type { Database } from './database';
import {
  systemAccountOwner,
  type Schema,
  type SystemAccountKind,
  type TenantAccountKind,
} from './schema';

/**
 * Per-tenant balances kept in double entry. Tenant accounts (`available`, `held`) never go
 * negative; the system's `funding` account goes negative by what was deposited and `settled`
 * grows by what was paid out, so all balances always sum to zero.
 *
 *   deposit  funding −x  → available +x
 *   hold     available −x → held +x
 *   capture  held −x      → settled +x
 *   release  held −x      → available +x
 */
interface Leg {
  owner: string;
  kind: TenantAccountKind | SystemAccountKind;
  amount: bigint;
}

async function post(
  database: Database,
  trx: Kysely<Schema>,
  entry: string,
  intentId: string | null,
  legs: Leg[],
  now: Date,
): Promise<void> {
  // Lock tenant accounts in one global order so two entries on the same tenant cannot deadlock.
  // System accounts keep no balance row (their balance is the sum of their postings), so they
  // never become a row every capture in the system waits for.
  const tenantLegs = legs
    .filter((leg) => leg.owner !== systemAccountOwner)
    .sort((a, b) => `${a.owner}/${a.kind}`.localeCompare(`${b.owner}/${b.kind}`));
  for (const leg of tenantLegs) {
    const account = await database
      .forUpdate(
        trx
          .selectFrom('ledger_accounts')
          .select('balance')
          .where('owner', '=', leg.owner)
          .where('kind', '=', leg.kind),
      )
      .executeTakeFirst();
    if (!account) throw new UnknownTenantError(leg.owner);
    const balance = BigInt(account.balance) + leg.amount;
    if (balance < 0n) {
      throw new InsufficientBalanceError(leg.owner, BigInt(account.balance), -leg.amount);
    }
    await trx
      .updateTable('ledger_accounts')
      .set({ balance: balance.toString() })
      .where('owner', '=', leg.owner)
      .where('kind', '=', leg.kind)
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
        amount: leg.amount.toString(),
        created_at: now.toISOString(),
      })),
    )
    .execute();
}

export async function createTenant(
  database: Database,
  tenant: { id: string; name: string; maxInFlight?: number | null },
  now: Date,
): Promise<void> {
  await database.transaction(async (trx) => {
    await trx
      .insertInto('tenants')
      .values({
        id: tenant.id,
        name: tenant.name,
        max_in_flight: tenant.maxInFlight ?? null,
        created_at: now.toISOString(),
      })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    await trx
      .insertInto('ledger_accounts')
      .values([
        { owner: tenant.id, kind: 'available', balance: '0' },
        { owner: tenant.id, kind: 'held', balance: '0' },
      ])
      .onConflict((conflict) => conflict.columns(['owner', 'kind']).doNothing())
      .execute();
  });
}

export async function deposit(
  database: Database,
  tenantId: string,
  amount: bigint,
  now: Date,
): Promise<void> {
  await database.transaction((trx) =>
    post(
      database,
      trx,
      'deposit',
      null,
      [
        { owner: systemAccountOwner, kind: 'funding', amount: -amount },
        { owner: tenantId, kind: 'available', amount },
      ],
      now,
    ),
  );
}

/** Reserves `amount` of the tenant's available balance for one intent (one hold per intent). */
export async function placeHold(
  database: Database,
  trx: Kysely<Schema>,
  hold: { intentId: string; tenantId: string; amount: bigint },
  now: Date,
): Promise<void> {
  await post(
    database,
    trx,
    'hold',
    hold.intentId,
    [
      { owner: hold.tenantId, kind: 'available', amount: -hold.amount },
      { owner: hold.tenantId, kind: 'held', amount: hold.amount },
    ],
    now,
  );
  await trx
    .insertInto('holds')
    .values({
      intent_id: hold.intentId,
      tenant_id: hold.tenantId,
      amount: hold.amount.toString(),
      status: 'active',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
}

/**
 * Ends an active hold: `captured` moves the money to `settled` (it left on-chain), `released`
 * gives it back to the tenant. A hold that already ended is left alone, so this is idempotent.
 */
export async function endHold(
  database: Database,
  trx: Kysely<Schema>,
  intentId: string,
  outcome: 'captured' | 'released',
  now: Date,
): Promise<boolean> {
  const hold = await database
    .forUpdate(trx.selectFrom('holds').selectAll().where('intent_id', '=', intentId))
    .executeTakeFirst();
  if (!hold || hold.status !== 'active') return false;
  const amount = BigInt(hold.amount);
  const destination: Leg =
    outcome === 'captured'
      ? { owner: systemAccountOwner, kind: 'settled', amount }
      : { owner: hold.tenant_id, kind: 'available', amount };
  await post(
    database,
    trx,
    outcome === 'captured' ? 'capture' : 'release',
    intentId,
    [{ owner: hold.tenant_id, kind: 'held', amount: -amount }, destination],
    now,
  );
  await trx
    .updateTable('holds')
    .set({ status: outcome, updated_at: now.toISOString() })
    .where('intent_id', '=', intentId)
    .execute();
  return true;
}

export interface TenantBalance {
  available: bigint;
  held: bigint;
}

export async function tenantBalance(
  db: Kysely<Schema>,
  tenantId: string,
): Promise<TenantBalance | undefined> {
  const rows = await db
    .selectFrom('ledger_accounts')
    .select(['kind', 'balance'])
    .where('owner', '=', tenantId)
    .execute();
  if (rows.length === 0) return undefined;
  const of = (kind: TenantAccountKind) => BigInt(rows.find((r) => r.kind === kind)?.balance ?? 0);
  return { available: of('available'), held: of('held') };
}

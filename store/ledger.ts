import type { Kysely } from 'kysely';
import { chainOfBook, isNativeBook, nativeBookOf, type LedgerBook } from '../domain/ledger-book';
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
 * Per-tenant balances kept in double entry, per book: an asset on a chain (domain/ledger-book.ts:
 * a chain's native coin, each registered token), so what was deposited on a chain pays out there.
 * Tenant accounts (`available`, `held`) never go negative; the system's `funding` account goes
 * negative by what was deposited and `settled` grows by what was paid out, so the balances of
 * each book always sum to zero. Gas is in the chain's native coin: `fees` grows by what the hot wallets burned, paid
 * from the tenant's held fee (when tenants pay it) or by the `house` (negative).
 *
 *   deposit  funding −x  → available +x
 *   hold     available −x → held +x            (tenant pays gas: also native available −f → held +f)
 *   capture  held −x      → settled +x
 *   release  held −x      → available +x
 *   gas      held −g (of f, the rest released) or house −g  → fees +g
 *   capture_reversed, gas_reversed  the two above the other way, to available (reverseCapture)
 */
interface Leg {
  owner: string;
  kind: TenantAccountKind | SystemAccountKind;
  asset: string;
  amount: bigint;
}

async function post(
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

export interface NewHold {
  intentId: string;
  tenantId: string;
  /** The intent's chain: its gas is held in that chain's native coin. */
  chainId: number;
  /** The intent's book and amount. */
  asset: LedgerBook;
  amount: bigint;
  /** Native held for the transaction's gas, when the tenant pays it (0: the house does). */
  feeHeld: bigint;
}

/** Reserves the intent's amount (and the gas it may cost the tenant) for one intent. */
export async function placeHold(
  database: Database,
  trx: Kysely<Schema>,
  hold: NewHold,
  now: Date,
): Promise<void> {
  const legs: Leg[] = [
    { owner: hold.tenantId, kind: 'available', asset: hold.asset, amount: -hold.amount },
    { owner: hold.tenantId, kind: 'held', asset: hold.asset, amount: hold.amount },
  ];
  if (hold.feeHeld > 0n) {
    const gasBook = nativeBookOf(hold.chainId);
    legs.push(
      { owner: hold.tenantId, kind: 'available', asset: gasBook, amount: -hold.feeHeld },
      { owner: hold.tenantId, kind: 'held', asset: gasBook, amount: hold.feeHeld },
    );
  }
  await post(database, trx, 'hold', hold.intentId, legs, now);
  await trx
    .insertInto('holds')
    .values({
      intent_id: hold.intentId,
      tenant_id: hold.tenantId,
      asset: hold.asset,
      amount: hold.amount.toString(),
      fee_held: hold.feeHeld.toString(),
      status: 'active',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
}

/**
 * Ends an active hold: `captured` moves the amount to `settled` (it left on-chain), `released`
 * gives it back to the tenant. `gasPaid`: the native wei a mined transaction of the intent burned
 * (captured, reverted or cancelled alike), posted to `fees` from the tenant's held fee, the house
 * paying what that does not cover; without it the held fee goes back too. A hold that already
 * ended is left alone, so this is idempotent.
 */
export async function endHold(
  database: Database,
  trx: Kysely<Schema>,
  intentId: string,
  outcome: 'captured' | 'released',
  now: Date,
  gasPaid?: bigint,
): Promise<boolean> {
  const hold = await database
    .forUpdate(trx.selectFrom('holds').selectAll().where('intent_id', '=', intentId))
    .executeTakeFirst();
  if (!hold || hold.status !== 'active') return false;
  const { tenant_id: tenantId, asset } = hold;
  // The hold's book names its chain (migration 0011 relabelled every active one): its gas is
  // that chain's coin.
  const chainId = chainOfBook(asset);
  if (chainId === undefined) throw new Error(`hold of ${intentId} is in ${asset}, no chain's book`);
  const gasBook = nativeBookOf(chainId);
  const amount = BigInt(hold.amount);
  const destination: Leg =
    outcome === 'captured'
      ? { owner: systemAccountOwner, kind: 'settled', asset, amount }
      : { owner: tenantId, kind: 'available', asset, amount };
  await post(
    database,
    trx,
    outcome === 'captured' ? 'capture' : 'release',
    intentId,
    [{ owner: tenantId, kind: 'held', asset, amount: -amount }, destination],
    now,
  );
  const feeHeld = BigInt(hold.fee_held);
  const fromTenant = gasPaid === undefined ? 0n : gasPaid < feeHeld ? gasPaid : feeHeld;
  const legs: Leg[] = [];
  if (feeHeld > 0n) {
    legs.push({ owner: tenantId, kind: 'held', asset: gasBook, amount: -feeHeld });
    if (feeHeld > fromTenant) {
      legs.push({
        owner: tenantId,
        kind: 'available',
        asset: gasBook,
        amount: feeHeld - fromTenant,
      });
    }
  }
  if (gasPaid !== undefined && gasPaid > 0n) {
    if (gasPaid > fromTenant) {
      legs.push({
        owner: systemAccountOwner,
        kind: 'house',
        asset: gasBook,
        amount: fromTenant - gasPaid,
      });
    }
    legs.push({ owner: systemAccountOwner, kind: 'fees', asset: gasBook, amount: gasPaid });
  }
  if (legs.length > 0) await post(database, trx, 'gas', intentId, legs, now);
  await trx
    .updateTable('holds')
    .set({ status: outcome, updated_at: now.toISOString() })
    .where('intent_id', '=', intentId)
    .execute();
  return true;
}

/**
 * Undoes a captured hold whose payment a reorg took away (an operator failing it in review): what
 * the capture and the gas entries posted, the other way, every tenant leg back to `available`.
 * The hold ends `released`, as if it had never been captured. False when the hold was not
 * captured (nothing to undo).
 */
export async function reverseCapture(
  database: Database,
  trx: Kysely<Schema>,
  intentId: string,
  now: Date,
): Promise<boolean> {
  const hold = await database
    .forUpdate(trx.selectFrom('holds').select('status').where('intent_id', '=', intentId))
    .executeTakeFirst();
  if (hold?.status !== 'captured') return false;
  for (const [entry, reversal] of [
    ['capture', 'capture_reversed'],
    ['gas', 'gas_reversed'],
  ] as const) {
    const postings = await trx
      .selectFrom('postings')
      .select(['owner', 'kind', 'asset', 'amount'])
      .where('intent_id', '=', intentId)
      .where('entry', '=', entry)
      .execute();
    // A tenant's legs (held, and the unused fee back to available) net to what it paid.
    const legs = new Map<string, Leg>();
    for (const posting of postings) {
      const tenant = posting.owner !== systemAccountOwner;
      const leg: Leg = {
        owner: posting.owner,
        kind: tenant ? 'available' : (posting.kind as SystemAccountKind),
        asset: posting.asset,
        amount: -BigInt(posting.amount),
      };
      const key = `${leg.owner}/${leg.kind}/${leg.asset}`;
      const same = legs.get(key);
      legs.set(key, same ? { ...same, amount: same.amount + leg.amount } : leg);
    }
    await post(database, trx, reversal, intentId, [...legs.values()], now);
  }
  await trx
    .updateTable('holds')
    .set({ status: 'released', updated_at: now.toISOString() })
    .where('intent_id', '=', intentId)
    .execute();
  return true;
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

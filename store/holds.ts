import { BrokenInvariantError } from '../domain/errors';
import type { Kysely } from 'kysely';
import { chainOfBook, nativeBookOf, type LedgerBook } from '../domain/ledger-book';
import type { Database } from './database';
import { post, type Leg } from './ledger';
import { systemAccountOwner, type Schema, type SystemAccountKind } from './schema';

// A tenant's money set aside for one intent (a hold), and how it ends: captured (paid out),
// released (back to available), or a capture reversed (its payment reorged away, failed in
// review). Posted through the books (ledger.ts).

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
  if (chainId === undefined) {
    throw new BrokenInvariantError({ rule: `hold of ${intentId} is in ${asset}, no chain's book` });
  }
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

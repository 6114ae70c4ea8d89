import { sql, type Kysely } from 'kysely';
import { nativeBookOf, retiredNativeBook } from '../../domain/ledger-book';
import type { Dialect } from '../schema';

/** What migration 0011 needs beyond the database: where the unattributable money goes. */
export interface RebookContext {
  /**
   * CHAIN_ID: the chain `available` balances and the system accounts' remainders move to. Unset,
   * the one chain the relayer has hot wallets on; with several, the migration refuses.
   */
  homeChainId?: number;
  /** Told one line per book a tenant or the system moved to (the migration prints it). */
  report: (line: string) => void;
}

interface Leg {
  owner: string;
  kind: string;
  asset: string;
  amount: bigint;
}

const systemOwner = '@system';
const entry = 'rebook_per_chain';

/**
 * Migration 0011: the native coin's one book (`native`, whatever the chain) becomes a book per
 * chain (`native:<chainId>`), so a deposit on one chain can no longer pay out on another.
 *
 * Nothing posted is rewritten: one posted entry empties every `native` account and books it on a
 * chain. A tenant's `held` goes where its active holds are (an intent's native amount and the gas
 * held for it, on the intent's chain); `available` and the system accounts' remainders go to the
 * home chain; for each other chain the system's `funding` there pays what was held there (and is
 * credited it at home), so every book still sums to zero. Active holds are relabelled with their
 * chain's book; ended ones keep `native`, as the postings they ended with do.
 *
 * Then the retired book is closed to writers: a worker of an older version still running during a
 * rolling upgrade gets an error from the database instead of booking in `native`.
 */
export async function rebookNativePerChain(
  db: Kysely<unknown>,
  dialect: Dialect,
  context: RebookContext,
): Promise<void> {
  if (dialect === 'sqlite') await sql`begin immediate`.execute(db);
  try {
    await rebook(db, context);
    await closeRetiredBook(db, dialect);
    if (dialect === 'sqlite') await sql`commit`.execute(db);
  } catch (error) {
    if (dialect === 'sqlite') await sql`rollback`.execute(db);
    throw error;
  }
}

interface NativeAccount {
  owner: string;
  kind: string;
  balance: string | number;
}

interface ActiveHold {
  intent_id: string;
  tenant_id: string;
  asset: string;
  amount: string | number;
  fee_held: string | number;
  chain_id: number;
}

async function rebook(db: Kysely<unknown>, context: RebookContext): Promise<void> {
  const accounts = await sql<NativeAccount>`
    select owner, kind, balance from ledger_accounts where asset = ${retiredNativeBook}`.execute(
    db,
  );
  const system = await systemBalances(db);
  const holds = await sql<ActiveHold>`
    select h.intent_id, h.tenant_id, h.asset, h.amount, h.fee_held, i.chain_id
    from holds h join intents i on i.id = h.intent_id where h.status = 'active'`.execute(db);
  const served = await sql<{ chain_id: number }>`
    select distinct chain_id from wallets order by chain_id`.execute(db);
  const home = homeChain(context.homeChainId, served.rows);
  const moved = legsToChainBooks(accounts.rows, system, holds.rows, home);
  await writeLegs(db, moved, holds.rows);
  for (const leg of moved) {
    if (leg.asset === retiredNativeBook || leg.amount === 0n) continue;
    context.report(
      `books per chain: ${leg.owner} ${leg.kind} ${leg.amount > 0n ? '+' : ''}${leg.amount} wei in ${leg.asset} (from native)`,
    );
  }
}

/**
 * The home chain, asked for only when some money has no chain of its own: CHAIN_ID, else the one
 * chain the relayer has hot wallets on; with several, the migration refuses.
 */
function homeChain(homeChainId: number | undefined, served: { chain_id: number }[]) {
  let home = homeChainId;
  return (): number => {
    if (home !== undefined) return home;
    if (served.length !== 1) {
      throw new Error(
        'migration 0011_books_per_chain moves native balances to CHAIN_ID: the relayer has hot ' +
          `wallets on ${served.length === 0 ? 'no chain' : `chains ${served.map((r) => r.chain_id).join(', ')}`}, ` +
          'so start a worker of this version (it knows CHAIN_ID) to migrate; nothing was changed',
      );
    }
    home = served[0]!.chain_id;
    return home;
  };
}

/** Native held per tenant per chain, from its active holds (the amount and the gas held). */
function nativeHeldPerChain(holds: readonly ActiveHold[]): Map<string, Map<number, bigint>> {
  const heldOn = new Map<string, Map<number, bigint>>();
  for (const hold of holds) {
    const native = hold.asset === retiredNativeBook ? BigInt(String(hold.amount)) : 0n;
    const held = native + BigInt(String(hold.fee_held));
    if (held === 0n) continue;
    const byChain = heldOn.get(hold.tenant_id) ?? new Map<number, bigint>();
    byChain.set(hold.chain_id, (byChain.get(hold.chain_id) ?? 0n) + held);
    heldOn.set(hold.tenant_id, byChain);
  }
  return heldOn;
}

/** The entry's legs: every `native` account emptied into the books per chain (see above). */
function legsToChainBooks(
  accounts: readonly NativeAccount[],
  system: Map<string, bigint>,
  holds: readonly ActiveHold[],
  home: () => number,
): Leg[] {
  const legs = new Map<string, Leg>();
  const add = (owner: string, kind: string, asset: string, amount: bigint) => {
    if (amount === 0n) return;
    const key = `${owner}/${kind}/${asset}`;
    const leg = legs.get(key) ?? { owner, kind, asset, amount: 0n };
    leg.amount += amount;
    legs.set(key, leg);
  };
  const heldOn = nativeHeldPerChain(holds);
  const fundedElsewhere = new Map<number, bigint>();
  for (const account of accounts) {
    const balance = BigInt(String(account.balance));
    add(account.owner, account.kind, retiredNativeBook, -balance);
    if (account.kind !== 'held') {
      if (balance !== 0n) add(account.owner, account.kind, nativeBookOf(home()), balance);
      continue;
    }
    let unattributed = balance;
    for (const [chainId, held] of heldOn.get(account.owner) ?? []) {
      add(account.owner, 'held', nativeBookOf(chainId), held);
      unattributed -= held;
      fundedElsewhere.set(chainId, (fundedElsewhere.get(chainId) ?? 0n) + held);
    }
    if (unattributed < 0n) {
      throw new Error(
        `migration 0011_books_per_chain: tenant ${account.owner} holds ${balance} wei of native, ` +
          `less than its active holds (${balance - unattributed}): the books disagree; nothing was changed`,
      );
    }
    if (unattributed > 0n) add(account.owner, 'held', nativeBookOf(home()), unattributed);
  }
  for (const [kind, total] of system) {
    if (total === 0n) continue;
    add(systemOwner, kind, retiredNativeBook, -total);
    add(systemOwner, kind, nativeBookOf(home()), total);
  }
  for (const [chainId, held] of fundedElsewhere) {
    if (chainId === home()) continue;
    add(systemOwner, 'funding', nativeBookOf(chainId), -held);
    add(systemOwner, 'funding', nativeBookOf(home()), held);
  }
  return [...legs.values()].filter((leg) => leg.amount !== 0n);
}

/** Posts the legs, opens the tenants' accounts in their new books, relabels the active holds. */
async function writeLegs(db: Kysely<unknown>, moved: Leg[], holds: readonly ActiveHold[]) {
  const now = new Date().toISOString();
  for (let start = 0; start < moved.length; start += 200) {
    const values = moved
      .slice(start, start + 200)
      .map(
        (leg) =>
          sql`(${entry}, ${null}, ${leg.owner}, ${leg.kind}, ${leg.asset}, ${leg.amount.toString()}, ${now})`,
      );
    await sql`insert into postings (entry, intent_id, owner, kind, asset, amount, created_at)
      values ${sql.join(values)}`.execute(db);
  }
  // Tenants' accounts in their new books (both kinds, as a deposit opens them), then the old ones.
  const balances = new Map<string, bigint>();
  for (const leg of moved) {
    if (leg.owner === systemOwner || leg.asset === retiredNativeBook) continue;
    for (const kind of ['available', 'held']) {
      const key = `${leg.owner}/${kind}/${leg.asset}`;
      balances.set(key, (balances.get(key) ?? 0n) + (kind === leg.kind ? leg.amount : 0n));
    }
  }
  for (const [key, balance] of balances) {
    const [owner, kind, asset] = key.split('/') as [string, string, string];
    await sql`insert into ledger_accounts (owner, kind, asset, balance)
      values (${owner}, ${kind}, ${asset}, ${balance.toString()})`.execute(db);
  }
  await sql`delete from ledger_accounts where asset = ${retiredNativeBook}`.execute(db);
  for (const hold of holds) {
    if (hold.asset !== retiredNativeBook) continue;
    await sql`update holds set asset = ${nativeBookOf(hold.chain_id)}
      where intent_id = ${hold.intent_id}`.execute(db);
  }
}

/**
 * The system accounts' balances in the retired book: the sums of their postings, added here in
 * bigint, a page at a time. Not SQL's sum(): SQLite keeps amounts as text and would add them as
 * floating point past 2^63 wei (9.2 ETH), losing wei.
 */
async function systemBalances(db: Kysely<unknown>): Promise<Map<string, bigint>> {
  const totals = new Map<string, bigint>();
  for (let after = -1; ;) {
    const page = await sql<{ id: number | string; kind: string; amount: string | number }>`
      select id, kind, amount from postings
      where asset = ${retiredNativeBook} and owner = ${systemOwner} and id > ${after}
      order by id limit 10000`.execute(db);
    for (const row of page.rows) {
      totals.set(row.kind, (totals.get(row.kind) ?? 0n) + BigInt(String(row.amount)));
    }
    if (page.rows.length < 10000) return totals;
    after = Number(page.rows[page.rows.length - 1]!.id);
  }
}

/** Old writers of `native` fail at the database: a CHECK on PostgreSQL, a trigger on SQLite. */
async function closeRetiredBook(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const refusal = `the native coin's book is per chain since migration 0011 (native:<chainId>): this relayer version is older than its database`;
  for (const table of ['postings', 'ledger_accounts', 'holds']) {
    const name = `${table}_native_per_chain`;
    if (dialect === 'postgres') {
      // NOT VALID: rows written before stay as they were; every new or changed row is checked.
      await sql`alter table ${sql.table(table)} add constraint ${sql.ref(name)}
        check (asset <> ${sql.lit(retiredNativeBook)}) not valid`.execute(db);
    } else {
      for (const event of ['insert', 'update']) {
        await sql`create trigger if not exists ${sql.ref(`${name}_${event}`)}
          before ${sql.raw(event)} on ${sql.table(table)}
          when new.asset = ${sql.lit(retiredNativeBook)}
          begin select raise(abort, ${sql.lit(refusal)}); end`.execute(db);
      }
    }
  }
}

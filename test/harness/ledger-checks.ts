import type { Database } from '../../store/database';
import { terminalStatuses, type IntentStatus } from '../../domain/intent';

export interface LedgerSnapshot {
  /** owner/kind/asset → balance as the accounts table says. */
  balances: Record<string, bigint>;
  /** owner/kind/asset → sum of postings. */
  posted: Record<string, bigint>;
  /** book → sum of its postings (each must be 0). */
  postedByAsset: Record<string, bigint>;
  /** tenant/asset → what its `gas` postings took from it (tenants paying gas). */
  gasCharged: Record<string, bigint>;
  holds: { intentId: string; status: string; asset: string; amount: bigint }[];
}

/** The key of an account in a snapshot. */
export const accountKey = (owner: string, kind: string, book: string) => `${owner}/${kind}/${book}`;

export async function ledgerSnapshot(database: Database): Promise<LedgerSnapshot> {
  const db = database.kysely;
  const accounts = await db.selectFrom('ledger_accounts').selectAll().execute();
  const postings = await db
    .selectFrom('postings')
    .select(['entry', 'owner', 'kind', 'asset', 'amount'])
    .execute();
  const holds = await db.selectFrom('holds').selectAll().execute();
  const posted: Record<string, bigint> = {};
  const postedByAsset: Record<string, bigint> = {};
  const gasCharged: Record<string, bigint> = {};
  for (const p of postings) {
    const key = accountKey(p.owner, p.kind, p.asset);
    posted[key] = (posted[key] ?? 0n) + BigInt(p.amount);
    postedByAsset[p.asset] = (postedByAsset[p.asset] ?? 0n) + BigInt(p.amount);
    if ((p.entry === 'gas' || p.entry === 'gas_reversed') && p.owner !== '@system') {
      const tenant = `${p.owner}/${p.asset}`;
      gasCharged[tenant] = (gasCharged[tenant] ?? 0n) - BigInt(p.amount);
    }
  }
  return {
    balances: Object.fromEntries(
      accounts.map((a) => [accountKey(a.owner, a.kind, a.asset), BigInt(a.balance)]),
    ),
    posted,
    postedByAsset,
    gasCharged,
    holds: holds.map((h) => ({
      intentId: h.intent_id,
      status: h.status,
      asset: h.asset,
      amount: BigInt(h.amount),
    })),
  };
}

/**
 * The books balance: the postings of each asset sum to zero, every tenant balance equals its
 * postings and is not negative, and no hold is still active once its intent has ended
 * (needs_review keeps its hold: the money may yet leave).
 */
export async function expectBooksBalanced(database: Database): Promise<LedgerSnapshot> {
  const snapshot = await ledgerSnapshot(database);
  for (const [asset, total] of Object.entries(snapshot.postedByAsset)) {
    expect({ asset, total }).toEqual({ asset, total: 0n });
  }
  for (const [account, balance] of Object.entries(snapshot.balances)) {
    expect({ account, balance }).toEqual({ account, balance: snapshot.posted[account] ?? 0n });
    expect(balance >= 0n).toBe(true);
  }
  const intents = await database.kysely.selectFrom('intents').select(['id', 'status']).execute();
  const statusOf = new Map(intents.map((i) => [i.id, i.status as IntentStatus]));
  for (const hold of snapshot.holds) {
    const status = statusOf.get(hold.intentId)!;
    if (terminalStatuses.has(status) && status !== 'needs_review') {
      expect({ hold: hold.intentId, status: hold.status }).not.toEqual({
        hold: hold.intentId,
        status: 'active',
      });
    }
  }
  return snapshot;
}

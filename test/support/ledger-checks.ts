import type { Database } from '../../store/database';
import { terminalStatuses, type IntentStatus } from '../../domain/intent';

export interface LedgerSnapshot {
  /** owner/kind → balance as the accounts table says. */
  balances: Record<string, bigint>;
  /** owner/kind → sum of postings. */
  posted: Record<string, bigint>;
  holds: { intentId: string; status: string; amount: bigint }[];
}

export async function ledgerSnapshot(database: Database): Promise<LedgerSnapshot> {
  const db = database.kysely;
  const accounts = await db.selectFrom('ledger_accounts').selectAll().execute();
  const postings = await db.selectFrom('postings').select(['owner', 'kind', 'amount']).execute();
  const holds = await db.selectFrom('holds').selectAll().execute();
  const posted: Record<string, bigint> = {};
  for (const p of postings)
    posted[`${p.owner}/${p.kind}`] = (posted[`${p.owner}/${p.kind}`] ?? 0n) + BigInt(p.amount);
  return {
    balances: Object.fromEntries(accounts.map((a) => [`${a.owner}/${a.kind}`, BigInt(a.balance)])),
    posted,
    holds: holds.map((h) => ({
      intentId: h.intent_id,
      status: h.status,
      amount: BigInt(h.amount),
    })),
  };
}

/**
 * The books balance: postings sum to zero, every tenant balance equals its postings and is not
 * negative, and no hold is still active once its intent has ended (needs_review keeps its hold:
 * the money may yet leave).
 */
export async function expectBooksBalanced(database: Database): Promise<LedgerSnapshot> {
  const snapshot = await ledgerSnapshot(database);
  const total = Object.values(snapshot.posted).reduce((sum, amount) => sum + amount, 0n);
  expect(total).toBe(0n);
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

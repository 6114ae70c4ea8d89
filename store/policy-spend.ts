import type { Kysely } from 'kysely';
import type { AssetRef } from '../domain/asset';
import { IntentStatus } from '../domain/intent';
import type { LedgerBook } from '../domain/ledger-book';
import { fromTimestamp, type Schema } from './schema';

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

import type { Kysely } from 'kysely';
import { notYetSignedStatuses } from '../domain/intent';
import type { ReasonCode } from '../domain/reason-codes';
import type { Schema } from './schema';

/** Intents not yet signed that wait with one of `reasons`, counted by chain and reason. */
export async function countWaiting(
  db: Kysely<Schema>,
  reasons: readonly ReasonCode[],
): Promise<{ chainId: number; reasonCode: ReasonCode; count: number }[]> {
  const rows = await db
    .selectFrom('intents')
    .select(['chain_id', 'reason_code', (eb) => eb.fn.countAll<number>().as('count')])
    .where('status', 'in', [...notYetSignedStatuses])
    .where('reason_code', 'in', [...reasons])
    .groupBy(['chain_id', 'reason_code'])
    .orderBy('chain_id')
    .execute();
  return rows.map((row) => ({
    chainId: Number(row.chain_id),
    reasonCode: row.reason_code!,
    count: Number(row.count),
  }));
}

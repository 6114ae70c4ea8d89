import type { Kysely } from 'kysely';
import { operatorOwner, topUpEndedStatuses } from '../domain/custody';
import type { Intent } from '../domain/intent';
import { intentFromRow, newIntentRow } from './intents';
import type { Schema } from './schema';
import { recordStateChange } from './webhook-outbox';

/**
 * Records a top-up of `topUp.to` from the chain's treasury as `authorized` (domain/custody.ts),
 * unless the wallet has one in the asset not ended: then nothing is written and undefined comes
 * back (the database's unique index decides between sweeps that race). Call inside a transaction.
 */
export async function insertTopUp(
  trx: Kysely<Schema>,
  id: string,
  topUp: {
    chainId: number;
    from: `0x${string}`;
    to: `0x${string}`;
    /** `native`, or the token's address. */
    asset: string;
    amount: bigint;
  },
  now: Date,
): Promise<Intent | undefined> {
  const inserted = await trx
    .insertInto('intents')
    .values(newIntentRow(id, { ...topUp, tenantId: operatorOwner }, now))
    .onConflict((conflict) => conflict.doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!inserted) return undefined;
  const intent = intentFromRow(inserted);
  await recordStateChange(trx, intent, null, now);
  return intent;
}

/** The chain's top-ups not ended (review included). */
export async function openTopUps(db: Kysely<Schema>, chainId: number): Promise<Intent[]> {
  const rows = await db
    .selectFrom('intents')
    .selectAll()
    .where('tenant_id', '=', operatorOwner)
    .where('chain_id', '=', chainId)
    .where('status', 'not in', [...topUpEndedStatuses])
    .execute();
  return rows.map(intentFromRow);
}

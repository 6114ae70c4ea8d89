import type { Kysely } from 'kysely';
import { operatorOwner } from '../domain/custody';
import { sweepMovedNothingStatuses } from '../domain/deposit';
import { IntentStatus, type Intent } from '../domain/intent';
import type { Hex } from '../domain/transfer';
import { intentFromRow, newIntentRow } from './intents';
import type { Database } from './database';
import type { Schema } from './schema';
import { recordStateChange } from './webhook-outbox';

// The sweeps that empty deposit addresses into the treasury: each the house's own intent
// (domain/custody.ts), with the deposits it takes and, once its receipt was read, what it moved.

/** A sweep no longer under way (its bytes can no longer land but as they did). */
const sweepEnded: IntentStatus[] = [IntentStatus.confirmed, ...sweepMovedNothingStatuses];

/** An address with credited deposits no sweep has taken, and none under way. */
export interface SweepableAddress {
  address: string;
  depositIds: string[];
  /** The tokens among them (the factory is told which to move). */
  tokens: Hex[];
}

/** The chain's deposit addresses a sweep would take credited deposits from now. */
export async function sweepableAddresses(
  db: Kysely<Schema>,
  chainId: number,
): Promise<SweepableAddress[]> {
  const rows = await db
    .selectFrom('deposits')
    .leftJoin('intents', 'intents.id', 'deposits.sweep_intent_id')
    .select(['deposits.id', 'deposits.address', 'deposits.asset'])
    .where('deposits.chain_id', '=', chainId)
    .where('deposits.status', '=', 'credited')
    .where((eb) =>
      eb.or([
        eb('deposits.sweep_intent_id', 'is', null),
        eb('intents.status', 'in', sweepMovedNothingStatuses),
      ]),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('deposit_sweeps')
            .innerJoin('intents as sweep', 'sweep.id', 'deposit_sweeps.intent_id')
            .select('deposit_sweeps.intent_id')
            .whereRef('deposit_sweeps.chain_id', '=', 'deposits.chain_id')
            .whereRef('deposit_sweeps.address', '=', 'deposits.address')
            .where('sweep.status', 'not in', sweepEnded),
        ),
      ),
    )
    .orderBy('deposits.address')
    .execute();
  const byAddress = new Map<string, SweepableAddress>();
  for (const row of rows) {
    const entry = byAddress.get(row.address) ?? {
      address: row.address,
      depositIds: [],
      tokens: [],
    };
    entry.depositIds.push(row.id);
    if (row.asset !== 'native' && !entry.tokens.includes(row.asset as Hex)) {
      entry.tokens.push(row.asset as Hex);
    }
    byAddress.set(row.address, entry);
  }
  return [...byAddress.values()];
}

/**
 * Records a sweep of `sweepable.address` — the house's intent, its row, its deposits taken — in
 * the caller's transaction; undefined, with nothing written, when another sweep took any of its
 * deposits first (their rows are locked and read before anything is written).
 */
export async function insertDepositSweep(
  database: Database,
  trx: Kysely<Schema>,
  id: string,
  sweep: { chainId: number; treasury: Hex; factory: Hex; callData: Hex },
  sweepable: SweepableAddress,
  now: Date,
): Promise<Intent | undefined> {
  const untaken = await database
    .forUpdate(
      trx
        .selectFrom('deposits')
        .select('id')
        .where('id', 'in', sweepable.depositIds)
        .where((eb) =>
          eb.or([
            eb('sweep_intent_id', 'is', null),
            eb(
              'sweep_intent_id',
              'in',
              eb
                .selectFrom('intents')
                .select('id')
                .where('status', 'in', sweepMovedNothingStatuses),
            ),
          ]),
        ),
    )
    .execute();
  if (untaken.length !== sweepable.depositIds.length) return undefined;
  const row = await trx
    .insertInto('intents')
    .values(
      newIntentRow(
        id,
        {
          tenantId: operatorOwner,
          chainId: sweep.chainId,
          from: sweep.treasury,
          to: sweep.factory,
          asset: 'native',
          amount: 0n,
          callData: sweep.callData,
        },
        now,
      ),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('deposit_sweeps')
    .values({
      intent_id: id,
      chain_id: sweep.chainId,
      address: sweepable.address,
      created_at: now.toISOString(),
    })
    .execute();
  await trx
    .updateTable('deposits')
    .set({ sweep_intent_id: id, updated_at: now.toISOString() })
    .where('id', 'in', sweepable.depositIds)
    .execute();
  const intent = intentFromRow(row);
  await recordStateChange(trx, intent, null, now);
  return intent;
}

/** A sweep, with what its receipt showed once read. */
export interface DepositSweep {
  intentId: string;
  address: string;
  status: string;
  txHash: string | null;
  /** Set once the receipt was read (the sweep confirmed). */
  blockNumber: bigint | null;
  gasPaid: bigint | null;
  swept: Record<string, bigint> | null;
}

/** Every sweep of the chain (to reconcile its addresses). */
export async function depositSweepsOnChain(
  db: Kysely<Schema>,
  chainId: number,
): Promise<DepositSweep[]> {
  const rows = await db
    .selectFrom('deposit_sweeps')
    .innerJoin('intents', 'intents.id', 'deposit_sweeps.intent_id')
    .select([
      'deposit_sweeps.intent_id',
      'deposit_sweeps.address',
      'deposit_sweeps.block_number',
      'deposit_sweeps.gas_paid',
      'deposit_sweeps.swept',
      'intents.status',
      'intents.tx_hash',
    ])
    .where('deposit_sweeps.chain_id', '=', chainId)
    .execute();
  return rows.map((row) => ({
    intentId: row.intent_id,
    address: row.address,
    status: row.status,
    txHash: row.tx_hash,
    blockNumber: row.block_number === null ? null : BigInt(row.block_number),
    gasPaid: row.gas_paid === null ? null : BigInt(row.gas_paid),
    swept:
      row.swept === null
        ? null
        : Object.fromEntries(
            Object.entries(JSON.parse(row.swept) as Record<string, string>).map(([k, v]) => [
              k,
              BigInt(v),
            ]),
          ),
  }));
}

/** What a confirmed sweep's receipt showed, kept so it is read once. */
export async function recordSweepOutcome(
  db: Kysely<Schema>,
  intentId: string,
  outcome: { blockNumber: bigint; gasPaid: bigint; swept: Record<string, bigint> },
): Promise<void> {
  await db
    .updateTable('deposit_sweeps')
    .set({
      block_number: outcome.blockNumber.toString(),
      gas_paid: outcome.gasPaid.toString(),
      swept: JSON.stringify(
        Object.fromEntries(Object.entries(outcome.swept).map(([k, v]) => [k, v.toString()])),
      ),
    })
    .where('intent_id', '=', intentId)
    .execute();
}

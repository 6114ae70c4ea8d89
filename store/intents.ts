import type { Kysely, Selectable } from 'kysely';
import { IntentConflictError, IntentNotFoundError, StaleVersionError } from '../domain/errors';
import { operatorOwner } from '../domain/custody';
import { IntentStatus, type Intent } from '../domain/intent';
import { sameRequest, type NewIntent } from '../domain/intent-request';
import type { Reason } from '../domain/reason-codes';
import type { AssetRef } from '../domain/asset';
import { inTransaction, type Database } from './database';
import { recordStateChange } from './webhook-outbox';
import { insertMetadataRows, metadataOfColumn } from './caller-references';
import { fromTimestamp, timestampOrNull, type IntentsTable, type Schema } from './schema';

export function intentFromRow(row: Selectable<IntentsTable>): Intent {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    chainId: Number(row.chain_id),
    from: row.from_address as `0x${string}` | null,
    to: row.to_address as `0x${string}`,
    asset: row.asset as AssetRef,
    amount: BigInt(row.amount),
    status: row.status,
    version: Number(row.version),
    nonce: row.nonce === null ? null : Number(row.nonce),
    txHash: row.tx_hash as `0x${string}` | null,
    rawTx: row.raw_tx as `0x${string}` | null,
    blockNumber: row.block_number === null ? null : BigInt(row.block_number),
    reason: row.reason,
    reasonCode: row.reason_code,
    feePaid: row.fee_paid === null ? null : BigInt(row.fee_paid),
    deliveredAmount: row.delivered_amount === null ? null : BigInt(row.delivered_amount),
    idempotencyKey: row.idempotency_key ?? null,
    submittedBy: row.submitted_by ?? null,
    policyVersion: row.policy_version === null ? null : Number(row.policy_version),
    callData: (row.call_data ?? null) as `0x${string}` | null,
    createdAt: fromTimestamp(row.created_at),
    updatedAt: fromTimestamp(row.updated_at),
    finalizedAt: row.finalized_at === null ? null : fromTimestamp(row.finalized_at),
    validUntil: timestampOrNull(row.valid_until),
    notBefore: timestampOrNull(row.not_before),
    priority: row.priority ?? null,
    maxFeePerGas: row.max_fee_per_gas ? BigInt(row.max_fee_per_gas) : null,
    reference: row.reference ?? null,
    metadata: metadataOfColumn(row.metadata ?? null),
  };
}

export async function getIntent(db: Kysely<Schema>, id: string): Promise<Intent> {
  const row = await db.selectFrom('intents').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new IntentNotFoundError(id);
  return intentFromRow(row);
}

/** Reads the intent and locks its row until the transaction ends. */
export async function getIntentForUpdate(
  database: Database,
  trx: Kysely<Schema>,
  id: string,
): Promise<Intent> {
  const row = await database
    .forUpdate(trx.selectFrom('intents').selectAll().where('id', '=', id))
    .executeTakeFirst();
  if (!row) throw new IntentNotFoundError(id);
  return intentFromRow(row);
}

export async function findIntentByIdempotencyKey(
  db: Kysely<Schema>,
  tenantId: string,
  idempotencyKey: string,
): Promise<Intent | undefined> {
  const row = await db
    .selectFrom('intents')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
  return row && intentFromRow(row);
}

/**
 * Records an accepted intent as `authorized` (version 1). Inserting the same id with the same
 * contents again returns the stored intent, so a retried submit is harmless.
 */
export async function insertIntent(
  db: Kysely<Schema>,
  id: string,
  request: NewIntent,
  now: Date,
  admitted: AdmittedAs = {},
): Promise<{ intent: Intent; created: boolean }> {
  // The intent and the event of its creation are one write (store/webhook-outbox.ts).
  if (!inTransaction(db)) {
    return db.transaction().execute((trx) => insertIntent(trx, id, request, now, admitted));
  }
  const inserted = await db
    .insertInto('intents')
    .values(newIntentRow(id, request, now, admitted))
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) {
    const intent = intentFromRow(inserted);
    if (request.metadata) await insertMetadataRows(db, intent, request.metadata);
    await recordStateChange(db, intent, null, now);
    return { intent, created: true };
  }
  const existing = await getIntent(db, id);
  if (!sameRequest(existing, request)) throw new IntentConflictError(id);
  return { intent: existing, created: false };
}

/**
 * How an intent was admitted: the tenant's name for it, the key that asked, its policy's version.
 */
export interface AdmittedAs {
  /** `awaiting_approval` when its tenant's policy asks a second key first (else `authorized`). */
  status?: IntentStatus;
  idempotencyKey?: string;
  submittedBy?: string;
  policyVersion?: number;
  /** Its tenant asks for unique references: the reference is held by the unique index. */
  uniqueReference?: boolean;
}

export const newIntentRow = (
  id: string,
  request: NewIntent,
  now: Date,
  {
    status = IntentStatus.authorized,
    idempotencyKey,
    submittedBy,
    policyVersion,
    uniqueReference,
  }: AdmittedAs = {},
) => ({
  id,
  tenant_id: request.tenantId,
  chain_id: request.chainId,
  from_address: request.from ?? null,
  to_address: request.to,
  asset: request.asset ?? 'native',
  amount: request.amount.toString(),
  status,
  version: 1,
  nonce: null,
  tx_hash: null,
  raw_tx: null,
  block_number: null,
  reason: null,
  reason_code: null,
  idempotency_key: idempotencyKey ?? null,
  // Only when known: tools that write intents on a schema from before migration 0015 still can
  // (and a transfer on one from before 0016).
  ...(submittedBy !== undefined && { submitted_by: submittedBy }),
  ...(policyVersion !== undefined && { policy_version: policyVersion }),
  ...(request.callData !== undefined && { call_data: request.callData }),
  ...(request.validUntil && { valid_until: request.validUntil.toISOString() }),
  ...(request.notBefore && { not_before: request.notBefore.toISOString() }),
  ...(request.priority && request.priority !== 'normal' && { priority: request.priority }),
  ...(request.maxFeePerGas && { max_fee_per_gas: request.maxFeePerGas.toString() }),
  ...(request.reference !== undefined && { reference: request.reference }),
  ...(request.metadata !== undefined && { metadata: JSON.stringify(request.metadata) }),
  ...(uniqueReference && request.reference !== undefined && { reference_unique: 1 }),
  created_at: now.toISOString(),
  updated_at: now.toISOString(),
});

export interface IntentPatch {
  status: IntentStatus;
  /** The wallet chosen when an intent that named none is signed. */
  from?: `0x${string}`;
  nonce?: number;
  txHash?: `0x${string}`;
  rawTx?: `0x${string}`;
  /** null: the receipt seen earlier is gone (reorg). */
  blockNumber?: bigint | null;
  /** Written as its code and its text together (domain/reason-codes.ts); null clears both. */
  reason?: Reason | null;
  feePaid?: bigint;
  deliveredAmount?: bigint;
}

/**
 * The only way an intent changes: a compare-and-set on its version. Losing the race throws
 * StaleVersionError (retryable); the retry re-reads the row and sees what the winner did.
 */
export async function transitionIntent(
  db: Kysely<Schema>,
  intent: Pick<Intent, 'id' | 'version' | 'status'>,
  patch: IntentPatch,
  now: Date,
): Promise<Intent> {
  // A change of status and the event reporting it are one write (store/webhook-outbox.ts).
  if (patch.status !== intent.status && !inTransaction(db)) {
    return db.transaction().execute((trx) => transitionIntent(trx, intent, patch, now));
  }
  const row = await db
    .updateTable('intents')
    .set({
      status: patch.status,
      version: intent.version + 1,
      updated_at: now.toISOString(),
      ...(patch.from !== undefined && { from_address: patch.from }),
      ...(patch.nonce !== undefined && { nonce: patch.nonce }),
      ...(patch.txHash !== undefined && { tx_hash: patch.txHash }),
      ...(patch.rawTx !== undefined && { raw_tx: patch.rawTx }),
      ...(patch.blockNumber !== undefined && {
        block_number: patch.blockNumber === null ? null : patch.blockNumber.toString(),
      }),
      ...(patch.reason !== undefined && {
        reason: patch.reason?.text ?? null,
        reason_code: patch.reason?.code ?? null,
      }),
      ...(patch.feePaid !== undefined && { fee_paid: patch.feePaid.toString() }),
      ...(patch.deliveredAmount !== undefined && {
        delivered_amount: patch.deliveredAmount.toString(),
      }),
    })
    .where('id', '=', intent.id)
    .where('version', '=', intent.version)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new StaleVersionError(intent.id, intent.version);
  const changed = intentFromRow(row);
  if (changed.status !== intent.status) await recordStateChange(db, changed, intent.status, now);
  return changed;
}

/** The tenants' intents (or `tenantId`'s) by status; top-ups are the operators', not counted. */
export async function countIntentsByStatus(
  db: Kysely<Schema>,
  tenantId?: string,
): Promise<Partial<Record<IntentStatus, number>>> {
  let query = db
    .selectFrom('intents')
    .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('status');
  query =
    tenantId === undefined
      ? query.where('tenant_id', '!=', operatorOwner)
      : query.where('tenant_id', '=', tenantId);
  const rows = await query.execute();
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
}

/**
 * Intents still `authorized` since before `cutoff` that are not batch items (a batch starts its
 * own): the ones whose workflow a crash may have kept from starting.
 */
export async function authorizedIntentsBefore(db: Kysely<Schema>, cutoff: Date): Promise<Intent[]> {
  const rows = await db
    .selectFrom('intents')
    .selectAll()
    .where('status', '=', 'authorized')
    .where('created_at', '<=', cutoff.toISOString())
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('batch_items')
            .select('intent_id')
            .whereRef('batch_items.intent_id', '=', 'intents.id'),
        ),
      ),
    )
    .limit(1000)
    .execute();
  return rows.map(intentFromRow);
}

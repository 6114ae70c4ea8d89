import type { Client } from '@temporalio/client';
import { createHash } from 'node:crypto';
import type { Database } from '../store/database';
import { findBatch, insertBatch, type Batch, type BatchItemRequest } from '../store/batches';
import type { AdmissionLimits } from '../operations/admission';
import { refuseIfKeyExpired } from '../operations/idempotency-keys';
import type { BatchMode } from '../domain/batch';
import type { Kysely } from 'kysely';
import { ledgerAssetOf, nativeAsset, type AssetRef } from '../domain/asset';
import { needsApproval, type PaymentPolicy } from '../domain/payment-policy';
import { enforcePaymentPolicy } from '../operations/payment-policy';
import { policyInForce } from '../store/policies';
import {
  IntentConflictError,
  InvalidIntentError,
  NoAccountError,
  UnknownAssetError,
  UnknownChainError,
  UnknownTenantError,
} from '../domain/errors';
import type { ChainRegistry } from '../chain/chain';
import { resolveAsset } from '../store/assets';
import { hasAccount } from '../store/ledger';
import type { Schema } from '../store/schema';
import { startBatchOf } from './workflow-starts';
import { IdPrefix, newId } from '../operations/new-id';
import { findTenant } from '../store/tenants';
import type { IntentTimings } from '../domain/intent-timings';
import { deadlineRefusals, type Deadlines } from '../domain/intent-deadlines';
import { IntentPriority } from '../domain/intent-priority';

export interface BatchRequest extends Deadlines {
  items: BatchItemRequest[];
  concurrency: number;
  mode: BatchMode;
  /** Its items' (default bulk). */
  priority?: IntentPriority;
}

export interface SubmitBatchDependencies {
  database: Database;
  client: Client;
  taskQueue: string;
  clock?: () => Date;
  /** The send window and confirmation timeout new intents start with (the process's settings). */
  timings?: IntentTimings;
  /** The chains this process serves (the API's): a row on another is refused by its index. */
  chains?: ChainRegistry;
  /** The API's admission settings: here, how long an Idempotency-Key names its batch. */
  admission?: Pick<AdmissionLimits, 'idempotencyKeyTtlMs'>;
}

const fingerprint = (request: BatchRequest): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        request.mode,
        request.concurrency,
        request.items.map((item) => {
          const fields = [item.chainId, item.from, item.to, item.amount.toString()];
          // Native items hash as they did before assets, so their batches keep their keys; the
          // caller's reference and metadata only when given, for the same reason.
          const marks =
            item.reference !== undefined || item.metadata !== undefined
              ? [[item.reference ?? null, item.metadata ?? null]]
              : [];
          // Its own fee ceiling only when given, for the same reason.
          const ceiling = item.maxFeePerGas !== undefined ? [item.maxFeePerGas.toString()] : [];
          return item.asset === undefined || item.asset === nativeAsset
            ? [...fields, ...marks, ...ceiling]
            : [...fields, item.asset, ...marks, ...ceiling];
        }),
        // Only when given, so batches without deadlines keep their keys too.
        ...(request.validUntil || request.notBefore
          ? [[request.validUntil?.toISOString(), request.notBefore?.toISOString()]]
          : []),
        // Only when not the default, for the same reason.
        ...(request.priority && request.priority !== IntentPriority.bulk ? [request.priority] : []),
      ]),
    )
    .digest('hex');

/**
 * Records a batch and its items in one transaction and starts its workflow. The same
 * Idempotency-Key with the same items returns the same batch; with other items it is refused.
 * Items are only validated here: each becomes an intent (and passes admission) when its turn
 * comes, so a batch is never refused for the tenant's in-flight limit. A batch with an item at
 * or above its book's approval threshold waits, as a batch, for one approval by a key other than
 * `submittedBy` before any item starts (`awaiting_approval`).
 */
export async function submitBatch(
  deps: SubmitBatchDependencies,
  tenantId: string,
  request: BatchRequest,
  idempotencyKey: string,
  submittedBy?: string,
): Promise<{ batch: Batch; created: boolean }> {
  const now = deps.clock?.() ?? new Date();
  const served = deps.chains?.chainIds;
  const unserved = served ? request.items.findIndex((item) => !served.includes(item.chainId)) : -1;
  if (served && unserved >= 0) {
    throw new UnknownChainError(request.items[unserved]!.chainId, served, unserved);
  }
  const requestSha256 = fingerprint(request);
  const { database } = deps;
  const { id, created } = await database.transaction(async (trx) => {
    const existing = await findBatch(trx, { tenantId, idempotencyKey });
    if (existing) {
      refuseIfKeyExpired({
        key: idempotencyKey,
        firstUsedAt: existing.createdAt,
        ttlMs: deps.admission?.idempotencyKeyTtlMs,
        now,
        usedFor: existing.id,
      });
      if (existing.requestSha256 !== requestSha256) {
        throw new IntentConflictError(existing.id, idempotencyKey);
      }
      return { id: existing.id, created: false };
    }
    if (!(await findTenant(trx, tenantId))) throw new UnknownTenantError(tenantId);
    const refusals = deadlineRefusals(request, now);
    if (refusals.length > 0) throw new InvalidIntentError(refusals);
    const items = await resolveItemAssets(trx, tenantId, request.items);
    const policy = await policyInForce(trx, tenantId);
    await policeItems(database, trx, tenantId, items, policy, now);
    const awaitingApproval = items.some((item) =>
      needsApproval(policy, ledgerAssetOf(item.chainId, item.asset as AssetRef), item.amount),
    );
    const batchId = newId(IdPrefix.batch, now.getTime());
    await insertBatch(
      trx,
      {
        id: batchId,
        tenantId,
        mode: request.mode,
        concurrency: request.concurrency,
        itemCount: request.items.length,
        idempotencyKey,
        requestSha256,
        submittedBy,
        validUntil: request.validUntil ?? null,
        priority: request.priority ?? IntentPriority.bulk,
        notBefore: request.notBefore ?? null,
        ...(awaitingApproval && { status: 'awaiting_approval' as const }),
      },
      items,
      now,
    );
    return { id: batchId, created: true };
  });
  const batch = (await findBatch(database.kysely, { id }))!;
  await startBatchOf(deps, batch);
  return { batch, created };
}

/**
 * Each item's asset as an intent stores it, checked now so a bad item refuses the whole batch
 * before anything is written: registered on the item's chain, and kept by the tenant.
 */
async function resolveItemAssets(
  trx: Kysely<Schema>,
  tenantId: string,
  items: readonly BatchItemRequest[],
): Promise<BatchItemRequest[]> {
  const known = new Map<string, string>();
  const resolved: BatchItemRequest[] = [];
  for (const [index, item] of items.entries()) {
    const name = item.asset ?? nativeAsset;
    const key = `${item.chainId}/${name}`;
    let ref = known.get(key);
    if (ref === undefined) {
      const asset = await resolveAsset(trx, item.chainId, name);
      if (!asset) throw new UnknownAssetError(item.chainId, name, index);
      if (!(await hasAccount(trx, tenantId, ledgerAssetOf(item.chainId, asset.ref)))) {
        throw new NoAccountError(tenantId, asset.token?.alias ?? name, item.chainId, index);
      }
      ref = asset.ref;
      known.set(key, ref);
    }
    resolved.push({ ...item, asset: ref });
  }
  return resolved;
}

/**
 * Each item policed as a single intent is at admission, the items before it in its book counted
 * with what the tenant has committed: a refused row is named before anything waits for approval.
 */
async function policeItems(
  database: Database,
  trx: Kysely<Schema>,
  tenantId: string,
  items: readonly BatchItemRequest[],
  policy: PaymentPolicy,
  now: Date,
): Promise<void> {
  if (policy.version === 0 && items.every((item) => item.callData === undefined)) return;
  const earlier = new Map<string, bigint>();
  for (const [index, item] of items.entries()) {
    const asset = item.asset as AssetRef;
    const book = ledgerAssetOf(item.chainId, asset);
    const alongside = earlier.get(book) ?? 0n;
    await enforcePaymentPolicy(database, trx, { ...item, tenantId, asset }, 'admission', now, {
      item: index,
      alongside,
    });
    earlier.set(book, alongside + item.amount);
  }
}

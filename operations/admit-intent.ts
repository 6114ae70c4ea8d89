import type { Database } from '../store/database';
import { findIntentByIdempotencyKey, insertIntent } from '../store/intents';
import { tenantBalance } from '../store/ledger';
import { findTenant } from '../store/tenants';
import { recordAudit } from '../store/audit-log';
import { exclusiveWallets, usableWallets } from '../store/wallet-pools';
import type { Kysely } from 'kysely';
import type { Schema } from '../store/schema';
import {
  InsufficientBalanceError,
  IntentConflictError,
  InvalidIntentError,
  NoExclusiveWalletError,
  PausedError,
  NoAccountError,
  PolicyViolationError,
  ReferenceTakenError,
  UnknownAssetError,
  UnknownTenantError,
} from '../domain/errors';
import { ledgerAssetOf, shownIn, type RegisteredToken } from '../domain/asset';
import { resolveAsset } from '../store/assets';
import { IntentStatus, type Intent } from '../domain/intent';
import { needsApproval, PolicyRule } from '../domain/payment-policy';
import { sameRequest, type NewIntent } from '../domain/intent-request';
import { admit, lockAdmission, type AdmissionLimits } from './admission';
import { newIntentId } from './new-id';
import { refuseIfKeyExpired } from './idempotency-keys';
import { deadlineRefusals } from '../domain/intent-deadlines';
import { pauseOver } from '../domain/pause';
import { activePauses } from '../store/pauses';
import { enforcePaymentPolicy } from './payment-policy';
import { intentHoldingReference, tenantWantsUniqueReferences } from '../store/caller-references';

export interface AdmitOptions {
  intentId?: string;
  /** The tenant's name for this payment: the same key with the same body is the same intent. */
  idempotencyKey?: string;
  /** The API key asking (recorded on the intent). */
  submittedBy?: string;
  /**
   * An intent at its tenant's approval threshold is refused instead of waiting (an item of a batch
   * that needed no approval when it was submitted: the threshold was lowered since).
   */
  refuseApproval?: boolean;
  /**
   * An item of a batch approved as a batch: at its threshold it is admitted `authorized`, with an
   * audit entry naming the batch's approver.
   */
  approvedWithBatch?: { batchId: string; approver: string; note: string | null };
}

/**
 * A call is sent only from a wallet that no other tenant may use (store/wallet-pools.ts
 * exclusiveWallets): refused when the tenant has none, or named another.
 */
async function callWalletsOf(trx: Kysely<Schema>, request: NewIntent): Promise<void> {
  const own = await exclusiveWallets(trx, request.tenantId, request.chainId);
  if (own.length === 0 || (request.from !== undefined && !own.includes(request.from))) {
    throw new NoExclusiveWalletError(request.tenantId, request.chainId, request.from);
  }
}

/**
 * Records a valid request as `authorized` (or `awaiting_approval`, at or above its tenant's
 * approval threshold), in one transaction that checks everything first, so a refused intent writes
 * nothing: its asset is `native` or a token registered for the chain, the tenant keeps an account
 * in it, and that account covers the amount (advisory). The same Idempotency-Key (or id) with the
 * same body returns the stored intent (`created: false`); with another body it is refused. Starting
 * its workflow is the caller's part: the API starts one, a batch starts it as a child.
 */
export async function admitIntent(
  database: Database,
  request: NewIntent,
  options: AdmitOptions,
  limits: AdmissionLimits | undefined,
  clock: () => Date,
): Promise<{ intent: Intent; created: boolean }> {
  return database.transaction(async (trx) => {
    await lockAdmission(database, trx);
    const resolved = await resolveAsset(trx, request.chainId, request.asset);
    if (!resolved) throw new UnknownAssetError(request.chainId, request.asset!);
    request = { ...request, asset: resolved.ref };
    const key = options.idempotencyKey && {
      key: options.idempotencyKey,
      ttlMs: limits?.idempotencyKeyTtlMs,
      now: clock(),
    };
    const existing = key ? await storedUnderIdempotencyKey(trx, request, key) : undefined;
    if (existing) return { intent: existing, created: false };
    // After the idempotency look-up: a retried submit answers with its intent, deadline or not.
    const refusals = deadlineRefusals(request, clock());
    if (refusals.length > 0) throw new InvalidIntentError(refusals);
    if (!(await findTenant(trx, request.tenantId))) {
      throw new UnknownTenantError(request.tenantId);
    }
    const uniqueReference = await refuseTakenReference(trx, request);
    const refusing = pauseOver(
      (await activePauses(trx)).filter((pause) => pause.refuseAdmission),
      request,
    );
    if (refusing) throw new PausedError(refusing);
    await refuseWithoutWallet(trx, request);
    const asset = ledgerAssetOf(request.chainId, resolved.ref);
    await refuseWithoutFunds(trx, request, asset, resolved.token);
    // Read once admitted, under the lock: an intent is created after every intent whose end made
    // room for it, so the intents' own timeline never shows more open than admission allowed.
    const now = clock();
    const policed = { ...request, asset: resolved.ref };
    const policy = await enforcePaymentPolicy(database, trx, policed, 'admission', now);
    const atThreshold = needsApproval(policy, asset, request.amount);
    const awaitingApproval = atThreshold && !options.approvedWithBatch;
    if (awaitingApproval && options.refuseApproval) {
      throw new PolicyViolationError(
        {
          tenantId: request.tenantId,
          rule: PolicyRule.approvalRequired,
          policyVersion: policy.version,
        },
        `${PolicyRule.approvalRequired}: at or above its approval threshold a payment waits for a second key; this batch needed none when it was submitted (the threshold was lowered since): submit it again`,
      );
    }
    if (limits) await admit(trx, request.tenantId, limits, awaitingApproval);
    const admitted = await insertIntent(
      trx,
      options.intentId ?? newIntentId(now.getTime()),
      request,
      now,
      {
        idempotencyKey: options.idempotencyKey,
        submittedBy: options.submittedBy,
        policyVersion: policy.version,
        uniqueReference,
        ...(awaitingApproval && { status: IntentStatus.awaitingApproval }),
      },
    );
    const approval = options.approvedWithBatch;
    if (atThreshold && approval && admitted.created) {
      await recordAudit(
        trx,
        {
          intentId: admitted.intent.id,
          action: 'approve',
          actor: approval.approver,
          detail: { batchId: approval.batchId, note: approval.note },
        },
        now,
      );
    }
    return admitted;
  });
}

/**
 * The intent stored under the same Idempotency-Key; refused when its body was another, or when
 * the key is older than its window (`ttlMs`): never a second payment under an old key.
 */
async function storedUnderIdempotencyKey(
  trx: Kysely<Schema>,
  request: NewIntent,
  { key, ttlMs, now }: { key: string; ttlMs: number | undefined; now: Date },
): Promise<Intent | undefined> {
  const existing = await findIntentByIdempotencyKey(trx, request.tenantId, key);
  if (!existing) return undefined;
  refuseIfKeyExpired({ key, firstUsedAt: existing.createdAt, ttlMs, now, usedFor: existing.id });
  if (!sameRequest(existing, request)) throw new IntentConflictError(existing.id, key);
  return existing;
}

/** Whether the tenant wants its references unique; refused when another intent holds this one. */
async function refuseTakenReference(trx: Kysely<Schema>, request: NewIntent): Promise<boolean> {
  if (request.reference === undefined) return false;
  if (!(await tenantWantsUniqueReferences(trx, request.tenantId))) return false;
  const holder = await intentHoldingReference(trx, request.tenantId, request.reference);
  if (holder) throw new ReferenceTakenError({ reference: request.reference, intentId: holder });
  return true;
}

/** Refused when no hot wallet the tenant may use can send it (a call: none of its own). */
async function refuseWithoutWallet(trx: Kysely<Schema>, request: NewIntent): Promise<void> {
  if (request.callData !== undefined) {
    await callWalletsOf(trx, request);
  }
  const usable = await usableWallets(trx, request.tenantId, request.chainId);
  if (request.from !== undefined && !usable.includes(request.from)) {
    throw new InvalidIntentError([
      {
        field: 'from',
        message:
          `${request.from} is not a hot wallet the tenant may send from on chain ` +
          `${request.chainId} (unknown, retired, or outside the tenant's wallet pool)`,
      },
    ]);
  }
  if (usable.length === 0) {
    throw new InvalidIntentError([
      {
        field: 'chainId',
        message: `the tenant has no hot wallet to send from on chain ${request.chainId}: every wallet of its pool is retired, or the relayer has none there (an operator sees them with: relayer wallets list)`,
      },
    ]);
  }
}

/**
 * Refused without the tenant's book in the asset, or with less available than the amount.
 * Advisory: concurrent intents may still outrun the balance; the hold step is the authority.
 * After the wallets: a chain the relayer does not serve is named as that, not as a missing book.
 */
async function refuseWithoutFunds(
  trx: Kysely<Schema>,
  request: NewIntent,
  asset: string,
  token: RegisteredToken | undefined,
): Promise<void> {
  const balance = await tenantBalance(trx, request.tenantId, asset);
  const alias = token?.alias ?? 'native';
  if (!balance) throw new NoAccountError(request.tenantId, alias, request.chainId);
  if (balance.available < request.amount) {
    const shown = shownIn(token);
    throw new InsufficientBalanceError(request.tenantId, balance.available, request.amount, alias, {
      available: shown(balance.available),
      requested: shown(request.amount),
    });
  }
}

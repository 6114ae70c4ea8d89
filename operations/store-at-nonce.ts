import { StaleVersionError } from '../domain/errors';
import type { Intent, IntentStatus } from '../domain/intent';
import type { AttemptCause, SignedTransfer, TransferPlan } from '../domain/transfer';
import { recordAudit, type AuditAction } from '../store/audit-log';
import { getIntentForUpdate, transitionIntent } from '../store/intents';
import { insertAttempt, listAttempts } from '../store/transaction-attempts';
import type { DecidedBy, ReviewCheckDependencies } from './review-decision/dependencies';

/** A transaction a person asked for, signed at the intent's nonce and not stored yet. */
export interface SignedAtNonce {
  plan: TransferPlan;
  signed: SignedTransfer;
  nonce: number;
  cause: AttemptCause;
}

/** How it is stored: the status it needs and leaves, its refusal, and its audit entry. */
export interface StoreAtNonceTerms {
  from: IntentStatus;
  next: IntentStatus;
  /** The refusal for an intent found in another status than `from`. */
  notFrom: (current: Intent) => Error;
  action: AuditAction;
  detail?: Record<string, unknown>;
}

/**
 * Stores a transaction signed at the intent's nonce as its newest attempt and its current
 * transaction, with the audit entry that names who asked, in one database transaction: nothing is
 * sent that is not stored first. An intent changed since it was planned (a fee bump, say) is
 * refused as stale, so the request is planned again over every attempt.
 */
export function storeAtNonce(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intent: Intent,
  { plan, signed, nonce, cause }: SignedAtNonce,
  terms: StoreAtNonceTerms,
): Promise<Intent> {
  const now = deps.clock?.() ?? new Date();
  return deps.database.transaction(async (trx) => {
    const current = await getIntentForUpdate(deps.database, trx, intent.id);
    if (current.status !== terms.from) throw terms.notFrom(current);
    if (current.version !== intent.version) throw new StaleVersionError(intent.id, intent.version);
    const attempt = (await listAttempts(trx, intent.id)).length + 1;
    await insertAttempt(
      trx,
      { intentId: intent.id, attempt, nonce, ...signed, ...plan, cause },
      now,
    );
    const updated = await transitionIntent(
      trx,
      current,
      { status: terms.next, txHash: signed.txHash, rawTx: signed.rawTx, reason: null },
      now,
    );
    await recordAudit(
      trx,
      {
        intentId: intent.id,
        action: terms.action,
        actor: by.actor,
        detail: {
          ...(by.decisionKey && { decisionKey: by.decisionKey }),
          txHash: signed.txHash,
          nonce,
          replaces: current.txHash,
          maxFeePerGas: plan.maxFeePerGas.toString(),
          maxPriorityFeePerGas: plan.maxPriorityFeePerGas.toString(),
          ...terms.detail,
        },
      },
      now,
    );
    return updated;
  });
}

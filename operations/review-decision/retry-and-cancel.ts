import {
  FeeAboveCapError,
  NotInReviewError,
  ReviewRefusedError,
  StaleVersionError,
} from '../../domain/errors';
import { IntentStatus, type Intent, signingWallet } from '../../domain/intent';
import type { TransferPlan } from '../../domain/transfer';
import { recordAudit } from '../../store/audit-log';
import { getIntentForUpdate, transitionIntent } from '../../store/intents';
import { insertAttempt, listAttempts } from '../../store/transaction-attempts';
import type { ReviewCheckDependencies, DecidedBy } from './dependencies';
import { signedAndUnsettled } from './checks';
import { resolve } from './apply';

/** The same signed bytes go out again (never a new transaction): the intent is `signed` again. */
export async function prepareRetry(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  note?: string,
): Promise<Intent> {
  const { signed } = await signedAndUnsettled(deps, intentId);
  return resolve(deps, by, intentId, 'retry', IntentStatus.signed, {
    patch: { reason: null },
    detail: { txHash: signed.txHash, note },
  });
}

/**
 * Signs the nonce back: a zero-value transfer to the wallet itself at the intent's nonce, stored
 * as its newest attempt and made its current transaction, the intent `signed` again, so the
 * workflow sends it and follows every attempt to whichever is mined. Refused as a retry is, and
 * if outbidding the attempts passes the cancel fee cap.
 */
export async function prepareCancel(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  note?: string,
): Promise<Intent> {
  const { intent, signed } = await signedAndUnsettled(deps, intentId);
  const chain = deps.chains.get(intent.chainId);
  const wallet = signingWallet(intent);
  const attempts = (await listAttempts(deps.database.kysely, intentId)).filter(
    (attempt) => attempt.nonce === signed.nonce,
  );
  let plan: TransferPlan;
  try {
    plan = await chain.planCancel(wallet, attempts);
  } catch (error) {
    if (!(error instanceof FeeAboveCapError)) throw error;
    throw new ReviewRefusedError(intentId, 'cancel_above_cap', `cannot cancel: ${error.message}`);
  }
  // Signed before the lock (a signer may be remote); nothing is sent until it is stored.
  const cancel = await chain.signTransfer(plan, signed.nonce);
  const now = deps.clock?.() ?? new Date();
  return deps.database.transaction(async (trx) => {
    const current = await getIntentForUpdate(deps.database, trx, intentId);
    if (current.status !== IntentStatus.needsReview) {
      throw new NotInReviewError(intentId, current.status);
    }
    // Changed while the cancel was signed: the retry checks it all again.
    if (current.version !== intent.version) throw new StaleVersionError(intentId, intent.version);
    const attempt = (await listAttempts(trx, intentId)).length + 1;
    await insertAttempt(
      trx,
      { intentId, attempt, nonce: signed.nonce, ...cancel, ...plan, cause: 'cancel' },
      now,
    );
    const updated = await transitionIntent(
      trx,
      current,
      { status: IntentStatus.signed, txHash: cancel.txHash, rawTx: cancel.rawTx, reason: null },
      now,
    );
    await recordAudit(
      trx,
      {
        intentId,
        action: 'cancel_signed',
        actor: by.actor,
        detail: {
          ...(by.decisionKey && { decisionKey: by.decisionKey }),
          txHash: cancel.txHash,
          nonce: signed.nonce,
          replaces: signed.txHash,
          maxFeePerGas: plan.maxFeePerGas.toString(),
          maxPriorityFeePerGas: plan.maxPriorityFeePerGas.toString(),
          note,
        },
      },
      now,
    );
    return updated;
  });
}

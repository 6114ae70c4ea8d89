import type { ChainRegistry, TransactionObservation } from '../chain/chain';
import { deliveredBy } from '../chain/erc20';
import { isNative } from '../domain/asset';
import {
  FeeAboveCapError,
  NotInReviewError,
  ReviewRefusedError,
  StaleVersionError,
} from '../domain/errors';
import { IntentStatus, signedTransactionOf, type Intent, signingWallet } from '../domain/intent';
import { paymentOf } from '../domain/intent-payment';
import type { ReviewDecision } from '../domain/review';
import type { Hex, TransferPlan } from '../domain/transfer';
import { auditTrail, recordAudit, type AuditAction } from '../store/audit-log';
import type { Database } from '../store/database';
import { getIntent, getIntentForUpdate, transitionIntent } from '../store/intents';
import { endHold, reverseCapture } from '../store/ledger';
import {
  insertAttempt,
  intentClaimingTransaction,
  listAttempts,
} from '../store/transaction-attempts';
import { ReasonCode } from '../domain/reason-codes';

/** What deciding needs: the books and the chain, to check the decision against. */
export interface ReviewCheckDependencies {
  database: Database;
  chains: ChainRegistry;
  clock?: () => Date;
}

/**
 * Checks a decision against the chain and applies it: so an operator cannot book a payment that
 * did not happen, nor release money a signed transaction may still spend; each is recorded in the
 * audit log with who and when. A retry only puts the intent back to `signed`: whoever calls this
 * sends the bytes again.
 */
export async function applyReviewDecision(
  deps: ReviewCheckDependencies,
  actor: string,
  intentId: string,
  decision: ReviewDecision,
  decisionKey?: string,
): Promise<Intent> {
  // Applied already by an earlier try of the same step (its worker died after the commit).
  if (decisionKey !== undefined && (await decidedBy(deps, intentId, decisionKey))) {
    return getIntent(deps.database.kysely, intentId);
  }
  const by = { actor, ...(decisionKey !== undefined && { decisionKey }) };
  switch (decision.action) {
    case 'confirm':
      return resolveAsConfirmed(deps, by, intentId, decision.txHash, decision.note);
    case 'fail':
      return resolveAsFailed(deps, by, intentId, decision.reason);
    case 'retry':
      return prepareRetry(deps, by, intentId, decision.note);
    case 'cancel':
      return prepareCancel(deps, by, intentId, decision.note);
  }
}

/** Whether the step with `decisionKey` (its run and activity id) has applied its decision. */
export async function decidedBy(
  deps: ReviewCheckDependencies,
  intentId: string,
  decisionKey: string,
): Promise<boolean> {
  const trail = await auditTrail(deps.database.kysely, intentId);
  return trail.some((entry) => entry.detail.decisionKey === decisionKey);
}

/** Who decides, and the key of the step applying it (recorded in the audit entry), if any. */
interface DecidedBy {
  actor: string;
  decisionKey?: string;
}

async function resolveAsConfirmed(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  txHash: Hex,
  note?: string,
): Promise<Intent> {
  const intent = await intentInReview(deps, intentId);
  const chain = deps.chains.get(intent.chainId);
  const transfer = await chain.lookupTransfer(txHash);
  const refuse = (problem: ConstructorParameters<typeof ReviewRefusedError>[1], why: string) =>
    new ReviewRefusedError(intentId, problem, why);
  if (!transfer) throw refuse('transaction_not_found', `the node does not know ${txHash}`);
  const payment = paymentOf(intent, signingWallet(intent));
  if (
    transfer.from !== intent.from ||
    transfer.to !== payment.to ||
    transfer.value !== payment.value ||
    transfer.data !== (payment.data ?? '0x') ||
    transfer.chainId !== intent.chainId
  ) {
    throw refuse(
      'transaction_mismatch',
      isNative(intent.asset)
        ? `${txHash} sends ${transfer.value} wei from ${transfer.from} to ${transfer.to} on chain ` +
            `${transfer.chainId}; the intent is ${intent.amount} wei from ${intent.from} to ${intent.to}`
        : `${txHash} is not the transfer of ${intent.amount} of token ${intent.asset} from ` +
            `${intent.from} to ${intent.to} on chain ${intent.chainId} (it calls ${transfer.to} with ` +
            `${transfer.data.slice(0, 10)}…, value ${transfer.value})`,
    );
  }
  const seen = transfer.observation;
  if (seen.state !== 'mined' || seen.confirmations < chain.confirmations) {
    throw refuse(
      'transaction_not_mined',
      `${txHash} has ${seen.state === 'mined' ? seen.confirmations : 0} of ` +
        `${chain.confirmations} confirmations: resolve it once it has them`,
    );
  }
  if (!seen.succeeded) {
    throw refuse('transaction_reverted', `${txHash} reverted: no value moved; resolve as failed`);
  }
  const delivered = deliveredOf(intent, seen);
  if (delivered === 0n) {
    throw refuse(
      'token_moved_nothing',
      `${txHash} logged no transfer of the token from ${intent.from} to ${intent.to}: nothing was paid; resolve as failed`,
    );
  }
  const claimed = await intentClaimingTransaction(deps.database.kysely, txHash, intentId);
  if (claimed) {
    throw refuse('transaction_taken', `${txHash} belongs to intent ${claimed}`);
  }
  return resolve(deps, by, intentId, 'resolve_confirmed', IntentStatus.confirmed, {
    patch: {
      txHash,
      blockNumber: seen.blockNumber,
      reason: null,
      feePaid: seen.gasPaid,
      ...(delivered !== undefined && delivered !== intent.amount && { deliveredAmount: delivered }),
    },
    hold: 'captured',
    gasPaid: seen.gasPaid,
    detail: {
      txHash,
      blockNumber: seen.blockNumber.toString(),
      previousTxHash: intent.txHash,
      note,
    },
  });
}

async function resolveAsFailed(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  reason: string,
): Promise<Intent> {
  const intent = await intentInReview(deps, intentId);
  const onChain = await unpaidAttempts(deps, intent);
  if (onChain.unusedNonce !== undefined) {
    throw new ReviewRefusedError(
      intentId,
      'transaction_may_still_land',
      `nonce ${onChain.unusedNonce} of ${intent.from} is still unused, so a transaction signed ` +
        `for this intent can still be mined: retry it, or wait until the nonce is used`,
    );
  }
  // Its payment was captured, then reorged away: failing it gives the money back.
  const reversed = intent.reasonCode === ReasonCode.reorgedAway;
  return resolve(deps, by, intentId, 'resolve_failed', IntentStatus.failed, {
    patch: {
      reason: {
        code: ReasonCode.failedByReview,
        text: `resolved as failed by ${by.actor}: ${reason}`,
      },
    },
    hold: reversed ? 'reversed' : 'released',
    detail: { reason, txHash: intent.txHash, ...(reversed && { captureReversed: true }) },
  });
}

/**
 * The intent in review and its signed transaction, checked on-chain: refused if nothing was
 * signed, if one of its attempts was mined and paid, or if its nonce was used by another
 * transaction (then nothing signed for it can be mined).
 */
async function signedAndUnsettled(deps: ReviewCheckDependencies, intentId: string) {
  const intent = await intentInReview(deps, intentId);
  const signed = signedTransactionOf(intent);
  if (!signed) {
    throw new ReviewRefusedError(intentId, 'nothing_signed', 'it has no signed transaction');
  }
  const onChain = await unpaidAttempts(deps, intent);
  if (onChain.unusedNonce === undefined) {
    throw new ReviewRefusedError(
      intentId,
      'transaction_taken',
      `nonce ${signed.nonce} of ${intent.from} was used by another transaction, so nothing ` +
        `signed for this intent can be mined: resolve as failed`,
    );
  }
  return { intent, signed };
}

/** The same signed bytes go out again (never a new transaction): the intent is `signed` again. */
async function prepareRetry(
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
async function prepareCancel(
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

/**
 * What the chain says of every transaction ever signed for the intent (replacements and re-signs
 * included). Refused if one of them paid (resolve as confirmed instead); otherwise a nonce of
 * theirs nobody has used yet, if any: then one of them can still land.
 */
async function unpaidAttempts(
  deps: ReviewCheckDependencies,
  intent: Intent,
): Promise<{ unusedNonce?: number }> {
  const attempts = await listAttempts(deps.database.kysely, intent.id);
  if (attempts.length === 0) return {};
  const chain = deps.chains.get(intent.chainId);
  for (const attempt of attempts) {
    const seen = await chain.observeAtNode(attempt.txHash);
    if (seen.state === 'mined' && seen.succeeded && deliveredOf(intent, seen) !== 0n) {
      throw new ReviewRefusedError(
        intent.id,
        'transaction_mined',
        `its transaction ${attempt.txHash} was mined and paid: resolve as confirmed`,
      );
    }
  }
  const minedNonce = await chain.minedNonce(signingWallet(intent));
  const unused = attempts.map((attempt) => attempt.nonce).filter((nonce) => nonce >= minedNonce);
  return unused.length > 0 ? { unusedNonce: Math.max(...unused) } : {};
}

export async function intentInReview(
  deps: ReviewCheckDependencies,
  intentId: string,
): Promise<Intent> {
  const intent = await getIntent(deps.database.kysely, intentId);
  if (intent.status !== IntentStatus.needsReview) {
    throw new NotInReviewError(intentId, intent.status);
  }
  return intent;
}

/** The change itself: re-checked under the row lock, with its hold movement and audit entry. */
async function resolve(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  action: AuditAction,
  status: IntentStatus,
  change: {
    patch: Omit<Parameters<typeof transitionIntent>[2], 'status'>;
    /** `reversed`: the hold was captured (see reverseCapture). */
    hold?: 'captured' | 'released' | 'reversed';
    /** The gas the intent's mined transaction burned, posted with the hold's end. */
    gasPaid?: bigint;
    detail: Record<string, unknown>;
  },
): Promise<Intent> {
  const { database } = deps;
  const now = deps.clock?.() ?? new Date();
  return database.transaction(async (trx) => {
    const current = await getIntentForUpdate(database, trx, intentId);
    if (current.status !== IntentStatus.needsReview) {
      throw new NotInReviewError(intentId, current.status);
    }
    const updated = await transitionIntent(trx, current, { status, ...change.patch }, now);
    if (change.hold === 'reversed') await reverseCapture(database, trx, intentId, now);
    else if (change.hold) await endHold(database, trx, intentId, change.hold, now, change.gasPaid);
    const detail = { ...change.detail, ...(by.decisionKey && { decisionKey: by.decisionKey }) };
    await recordAudit(trx, { intentId, action, actor: by.actor, detail }, now);
    return updated;
  });
}

/**
 * What a mined transaction paid the intent's recipient in the intent's token, by its Transfer
 * logs; undefined for the native coin (its value is the payment).
 */
function deliveredOf(
  intent: Intent,
  seen: Extract<TransactionObservation, { state: 'mined' }>,
): bigint | undefined {
  if (isNative(intent.asset)) return undefined;
  return deliveredBy(seen.transfers, intent.asset, signingWallet(intent), intent.to);
}

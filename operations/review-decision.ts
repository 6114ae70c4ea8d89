import type { ChainRegistry } from '../chain/chain';
import { NotInReviewError, ReviewRefusedError } from '../domain/errors';
import { IntentStatus, signedTransactionOf, type Intent, signingWallet } from '../domain/intent';
import type { ReviewDecision } from '../domain/review';
import type { Hex } from '../domain/transfer';
import { recordAudit, type AuditAction } from '../store/audit-log';
import type { Database } from '../store/database';
import { getIntent, getIntentForUpdate, transitionIntent } from '../store/intents';
import { endHold } from '../store/ledger';
import { intentClaimingTransaction, listAttempts } from '../store/transaction-attempts';

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
export function applyReviewDecision(
  deps: ReviewCheckDependencies,
  actor: string,
  intentId: string,
  decision: ReviewDecision,
): Promise<Intent> {
  switch (decision.action) {
    case 'confirm':
      return resolveAsConfirmed(deps, actor, intentId, decision.txHash, decision.note);
    case 'fail':
      return resolveAsFailed(deps, actor, intentId, decision.reason);
    case 'retry':
      return prepareRetry(deps, actor, intentId, decision.note);
  }
}

async function resolveAsConfirmed(
  deps: ReviewCheckDependencies,
  actor: string,
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
  if (
    transfer.from !== intent.from ||
    transfer.to !== intent.to ||
    transfer.value !== intent.amount ||
    transfer.chainId !== intent.chainId
  ) {
    throw refuse(
      'transaction_mismatch',
      `${txHash} sends ${transfer.value} wei from ${transfer.from} to ${transfer.to} on chain ` +
        `${transfer.chainId}; the intent is ${intent.amount} wei from ${intent.from} to ${intent.to}`,
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
  const claimed = await intentClaimingTransaction(deps.database.kysely, txHash, intentId);
  if (claimed) {
    throw refuse('transaction_taken', `${txHash} belongs to intent ${claimed}`);
  }
  return resolve(deps, actor, intentId, 'resolve_confirmed', IntentStatus.confirmed, {
    patch: { txHash, blockNumber: seen.blockNumber, reason: null },
    hold: 'captured',
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
  actor: string,
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
  return resolve(deps, actor, intentId, 'resolve_failed', IntentStatus.failed, {
    patch: { reason: `resolved as failed by ${actor}: ${reason}` },
    hold: 'released',
    detail: { reason, txHash: intent.txHash },
  });
}

/** The same signed bytes go out again (never a new transaction): the intent is `signed` again. */
async function prepareRetry(
  deps: ReviewCheckDependencies,
  actor: string,
  intentId: string,
  note?: string,
): Promise<Intent> {
  const intent = await intentInReview(deps, intentId);
  const signed = signedTransactionOf(intent);
  if (!signed) {
    throw new ReviewRefusedError(
      intentId,
      'nothing_signed',
      'it has no signed transaction to send',
    );
  }
  const onChain = await unpaidAttempts(deps, intent);
  if (onChain.unusedNonce === undefined) {
    throw new ReviewRefusedError(
      intentId,
      'transaction_taken',
      `nonce ${signed.nonce} of ${intent.from} was used by another transaction, so ` +
        `${signed.txHash} can never be mined: resolve as failed`,
    );
  }
  return resolve(deps, actor, intentId, 'retry', IntentStatus.signed, {
    patch: { reason: null },
    detail: { txHash: signed.txHash, note },
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
    if (seen.state === 'mined' && seen.succeeded) {
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
  actor: string,
  intentId: string,
  action: AuditAction,
  status: IntentStatus,
  change: {
    patch: Omit<Parameters<typeof transitionIntent>[2], 'status'>;
    hold?: 'captured' | 'released';
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
    if (change.hold) await endHold(database, trx, intentId, change.hold, now);
    await recordAudit(trx, { intentId, action, actor, detail: change.detail }, now);
    return updated;
  });
}

import type { TransactionObservation } from '../../chain/chain';
import { deliveredBy } from '../../chain/erc20';
import { isNative } from '../../domain/asset';
import { NotInReviewError, ReviewRefusedError } from '../../domain/errors';
import { IntentStatus, type Intent } from '../../domain/intent';
import { signedTransactionOf, signingWallet } from '../../domain/signed-intent';
import { getIntent } from '../../store/intents';
import { listAttempts } from '../../store/transaction-attempts';
import type { ReviewCheckDependencies } from './dependencies';

// What the chain and the books say of an intent in review, before any decision is applied.

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

/**
 * The intent in review and its signed transaction, checked on-chain: refused if nothing was
 * signed, if one of its attempts was mined and paid, or if its nonce was used by another
 * transaction (then nothing signed for it can be mined).
 */
export async function signedAndUnsettled(deps: ReviewCheckDependencies, intentId: string) {
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

/**
 * What the chain says of every transaction ever signed for the intent (replacements and re-signs
 * included). Refused if one of them paid (resolve as confirmed instead); otherwise a nonce of
 * theirs nobody has used yet, if any: then one of them can still land.
 */
export async function unpaidAttempts(
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

/**
 * What a mined transaction paid the intent's recipient in the intent's token, by its Transfer
 * logs; undefined for the native coin (its value is the payment).
 */
export function deliveredOf(
  intent: Intent,
  seen: Extract<TransactionObservation, { state: 'mined' }>,
): bigint | undefined {
  if (isNative(intent.asset)) return undefined;
  return deliveredBy(seen.transfers, intent.asset, signingWallet(intent), intent.to);
}

import { NotCancellableError } from '../domain/errors';
import { IntentStatus, type Intent } from '../domain/intent';
import { signedTransactionOf, signingWallet } from '../domain/signed-intent';
import { getIntent } from '../store/intents';
import { listAttempts } from '../store/transaction-attempts';
import { signNonceCancel } from './nonce-cancel';
import { decidedBy } from './review-decision';
import type { DecidedBy, ReviewCheckDependencies } from './review-decision/dependencies';

/**
 * A tenant's or operator's cancel of a payment signed and sent but not mined (`confirming`): a
 * zero-value transfer at its nonce (signNonceCancel), the intent still `confirming`, its workflow
 * following every attempt. Refused once one of its transactions is mined or its nonce was used,
 * and if outbidding them passes the chain's cancel fee cap. A step's later try that finds its
 * cancel stored (by `by.decisionKey`) answers with the intent as it is.
 */
export async function cancelUnminedIntent(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  note?: string,
): Promise<Intent> {
  if (by.decisionKey !== undefined && (await decidedBy(deps, intentId, by.decisionKey))) {
    return getIntent(deps.database.kysely, intentId);
  }
  const intent = await getIntent(deps.database.kysely, intentId);
  const signed = signedTransactionOf(intent);
  if (intent.status !== IntentStatus.confirming || !signed) {
    throw new NotCancellableError(intentId, intent.status);
  }
  await refuseIfSettled(deps, intent, signed.nonce);
  return signNonceCancel(deps, by, intent, signed, {
    from: IntentStatus.confirming,
    next: IntentStatus.confirming,
    notFrom: (current) => new NotCancellableError(intentId, current.status),
    aboveCap: (message) => new NotCancellableError(intentId, intent.status, 'above_cap', message),
    note,
  });
}

/** Refused when the chain already settled the nonce: an attempt mined, or the nonce used. */
async function refuseIfSettled(
  deps: ReviewCheckDependencies,
  intent: Intent,
  nonce: number,
): Promise<void> {
  const chain = deps.chains.get(intent.chainId);
  for (const attempt of await listAttempts(deps.database.kysely, intent.id)) {
    const seen = await chain.observeAtNode(attempt.txHash);
    if (seen.state === 'mined') {
      throw new NotCancellableError(
        intent.id,
        intent.status,
        'mined',
        `its transaction ${attempt.txHash} was mined in block ${seen.blockNumber}: ` +
          'it ends at its next look, and a cancel can no longer take it back',
      );
    }
  }
  if ((await chain.minedNonce(signingWallet(intent))) > nonce) {
    throw new NotCancellableError(
      intent.id,
      intent.status,
      'nonce_used',
      `nonce ${nonce} of ${signingWallet(intent)} was used by another transaction: ` +
        'nothing signed for it can be mined, and a cancel would not be either',
    );
  }
}

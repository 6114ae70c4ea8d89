import { NotCancellableError } from '../domain/errors';
import { IntentStatus, type Intent } from '../domain/intent';
import { signedTransactionOf } from '../domain/signed-intent';
import { getIntent } from '../store/intents';
import { signNonceCancel } from './nonce-cancel';
import { nonceSettled } from './nonce-settled';
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

/** What a cancel can no longer change, said after why. */
const tooLate = {
  mined: 'it ends at its next look, and a cancel can no longer take it back',
  nonce_used: 'nothing signed for it can be mined, and a cancel would not be either',
};

/** Refused when the chain already settled the nonce: an attempt mined, or the nonce used. */
async function refuseIfSettled(
  deps: ReviewCheckDependencies,
  intent: Intent,
  nonce: number,
): Promise<void> {
  const settled = await nonceSettled(deps, intent, nonce);
  if (!settled) return;
  const { problem, why } = settled;
  throw new NotCancellableError(intent.id, intent.status, problem, `${why}: ${tooLate[problem]}`);
}

import { NotInReviewError, ReviewRefusedError } from '../../domain/errors';
import { IntentStatus, type Intent } from '../../domain/intent';
import { pastValidUntil } from '../../domain/intent-deadlines';
import { signNonceCancel } from '../nonce-cancel';
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
  const { intent, signed } = await signedAndUnsettled(deps, intentId);
  // Its bytes would not go out (the steps hold the deadline): say so rather than wait again.
  if (pastValidUntil(intent, deps.clock?.() ?? new Date())) {
    throw new ReviewRefusedError(
      intentId,
      'past_deadline',
      `its validUntil (${intent.validUntil!.toISOString()}) has passed, so its payment is not sent again: cancel it to free the nonce, or wait for the chain`,
    );
  }
  return resolve(deps, by, intentId, 'retry', IntentStatus.signed, {
    patch: { reason: null },
    detail: { txHash: signed.txHash, note },
  });
}

/**
 * Signs the nonce back (see signNonceCancel): the intent `signed` again, so the workflow sends the
 * cancel and follows every attempt to whichever is mined. Refused as a retry is, and if outbidding
 * the attempts passes the cancel fee cap.
 */
export async function prepareCancel(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  note?: string,
): Promise<Intent> {
  const { intent, signed } = await signedAndUnsettled(deps, intentId);
  return signNonceCancel(deps, by, intent, signed, {
    from: IntentStatus.needsReview,
    next: IntentStatus.signed,
    notFrom: (current) => new NotInReviewError(intentId, current.status),
    aboveCap: (message) => new ReviewRefusedError(intentId, 'cancel_above_cap', message),
    note,
  });
}

import { ReviewRefusedError } from '../../domain/errors';
import { IntentStatus, type Intent } from '../../domain/intent';
import { ReasonCode } from '../../domain/reason-codes';
import type { ReviewCheckDependencies, DecidedBy } from './dependencies';
import { intentInReview, unpaidAttempts } from './checks';
import { resolve } from './apply';

export async function resolveAsFailed(
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
  return resolve(deps, by, intentId, 'resolve_failed', IntentStatus.failed, {
    patch: {
      reason: {
        code: ReasonCode.failedByReview,
        text: `resolved as failed by ${by.actor}: ${reason}`,
      },
    },
    hold: 'released',
    detail: { reason, txHash: intent.txHash },
  });
}

import { ActivityFailure, ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { ErrorName, notCancellableMessage } from '../../domain/error-catalogue';
import { IntentStatus } from '../../domain/intent';
import type { ReviewOutcome, UnminedCancelRequest } from '../../domain/review';
import { cancelUnminedUpdate, type PaymentIntentProgress } from './messages';
import { noteTxHash } from './progress';
import { cancelUnmined } from './steps';

/** Being sent (the send step runs from held): a cancel waits for the send to outbid it. */
const beingSent = (status: IntentStatus) =>
  status === IntentStatus.held || status === IntentStatus.signed;

/**
 * Takes a tenant's or operator's cancel of the payment while it is sent but not mined (the
 * `cancelUnmined` update): the activity signs, stores and sends a zero-value transfer at its
 * nonce; the confirmation wait then follows it with the payment's own transactions. `signed`
 * counts the cancels signed, so the wait looks at once and gives the cancel its own timeout.
 */
export function unminedCancels(intentId: string, progress: PaymentIntentProgress) {
  let signed = 0;
  let applying = false;
  const notCancellable = () =>
    ApplicationFailure.create({
      type: ErrorName.notCancellable,
      message: notCancellableMessage(intentId, progress.status),
      details: [
        {
          intentId,
          status: progress.status,
          problem: progress.status === IntentStatus.needsReview ? 'in_review' : 'ended',
        },
      ],
      nonRetryable: true,
    });
  setHandler<ReviewOutcome, [UnminedCancelRequest], typeof cancelUnminedUpdate>(
    cancelUnminedUpdate,
    async (request) => {
      await condition(() => !beingSent(progress.status));
      if (applying || progress.status !== IntentStatus.confirming) throw notCancellable();
      applying = true;
      try {
        const outcome = await cancelUnmined({ intentId, ...request });
        if (outcome.txHash) noteTxHash(progress, outcome.txHash);
        signed += 1;
        return outcome;
      } catch (error) {
        // The caller gets the refusal itself (NotCancellable), not its wrapping.
        throw error instanceof ActivityFailure && error.cause ? error.cause : error;
      } finally {
        applying = false;
      }
    },
    {
      validator: () => {
        const { status } = progress;
        if (applying || !(beingSent(status) || status === IntentStatus.confirming)) {
          throw notCancellable();
        }
      },
    },
  );
  return { signed: () => signed };
}

export type UnminedCancels = ReturnType<typeof unminedCancels>;

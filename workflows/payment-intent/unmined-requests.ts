import { ActivityFailure, ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { ErrorName, notCancellableMessage } from '../../domain/error-catalogue';
import { IntentStatus } from '../../domain/intent';
import type { ReviewOutcome, SpeedUpRequest, UnminedCancelRequest } from '../../domain/review';
import { cancelUnminedUpdate, speedUpUpdate, type PaymentIntentProgress } from './messages';
import { noteTxHash } from './progress';
import { cancelUnmined, speedUp } from './steps';

/** Being sent (the send step runs from held): a request waits for the send to outbid it. */
const beingSent = (status: IntentStatus) =>
  status === IntentStatus.held || status === IntentStatus.signed;

/**
 * Takes a tenant's or operator's request for the payment while it is sent but not mined: a
 * cancel (the `cancelUnmined` update: a zero-value transfer at its nonce) or a speed-up (the
 * `speedUp` update: the payment again at its nonce, bidding more). One at a time: each activity
 * signs, stores and sends its transaction, which the confirmation wait then follows with the
 * others. `signed` counts the transactions signed so, to look at once; `cancelsSigned` the
 * cancels, which get the confirmation timeout anew.
 */
export function unminedRequests(intentId: string, progress: PaymentIntentProgress) {
  let signed = 0;
  let cancelsSigned = 0;
  let applying = false;
  const refusal = (request: 'cancel' | 'speed-up') => () =>
    ApplicationFailure.create({
      type: request === 'cancel' ? ErrorName.notCancellable : ErrorName.cannotSpeedUp,
      message:
        request === 'cancel'
          ? notCancellableMessage(intentId, progress.status)
          : `intent ${intentId} is ${progress.status}: only a payment sent and not mined can be sped up`,
      details: [
        {
          intentId,
          status: progress.status,
          problem: progress.status === IntentStatus.needsReview ? 'in_review' : 'ended',
        },
      ],
      nonRetryable: true,
    });
  const notCancellable = refusal('cancel');
  const cannotSpeedUp = refusal('speed-up');
  /** Runs one request's activity once the send is done; refused unless `confirming`. */
  const apply =
    <Request>(
      refused: () => ApplicationFailure,
      step: (request: Request) => Promise<ReviewOutcome>,
    ) =>
    async (request: Request) => {
      await condition(() => !beingSent(progress.status));
      if (applying || progress.status !== IntentStatus.confirming) throw refused();
      applying = true;
      try {
        const outcome = await step(request);
        if (outcome.txHash) noteTxHash(progress, outcome.txHash);
        signed += 1;
        return outcome;
      } catch (error) {
        // The caller gets the refusal itself (NotCancellable, CannotSpeedUp), not its wrapping.
        throw error instanceof ActivityFailure && error.cause ? error.cause : error;
      } finally {
        applying = false;
      }
    };
  const validator = (refused: () => ApplicationFailure) => () => {
    const { status } = progress;
    if (applying || !(beingSent(status) || status === IntentStatus.confirming)) throw refused();
  };
  setHandler<ReviewOutcome, [UnminedCancelRequest], typeof cancelUnminedUpdate>(
    cancelUnminedUpdate,
    apply(notCancellable, async (request: UnminedCancelRequest) => {
      const outcome = await cancelUnmined({ intentId, ...request });
      cancelsSigned += 1;
      return outcome;
    }),
    { validator: validator(notCancellable) },
  );
  setHandler<ReviewOutcome, [SpeedUpRequest], typeof speedUpUpdate>(
    speedUpUpdate,
    apply(cannotSpeedUp, (request: SpeedUpRequest) => speedUp({ intentId, ...request })),
    { validator: validator(cannotSpeedUp) },
  );
  return { signed: () => signed, cancelsSigned: () => cancelsSigned };
}

export type UnminedRequests = ReturnType<typeof unminedRequests>;

import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  setHandler,
} from '@temporalio/workflow';
import { ErrorName, notInReviewMessage } from '../../domain/error-catalogue';
import { defaultConfirmTimeoutMs } from '../../domain/intent-timings';
import { reasonCodeOfError } from '../../domain/reason-codes';
import type { ReviewDecision, ReviewOutcome, ReviewRequest } from '../../domain/review';
import { type PaymentIntentProgress, resolveReviewUpdate } from './messages';
import type { PaymentIntentInput } from './input';
import type { IntentShape } from './shape';
import { freeAbandonedLane, resolveReview } from './steps';

/** How long a decision sent before the run waits in review waits for it. */
const earlyDecisionWaitMs = 30_000;

/** A decision applied: the intent as it left it, and which action it was. */
export type Decided = ReviewOutcome & { action: ReviewDecision['action'] };

/**
 * The intent's place in the review queue. Registered as the workflow starts, so an operator's
 * decision (the `resolveReview` update) is never lost: `closed` until the run waits, `waiting`
 * for a decision, `applying` one (checked on-chain by an activity), or `lane-rule` while the
 * relayer looks whether it may free the lane itself.
 *
 * The step that finds the intent needs review writes `needs_review` to the books a workflow task
 * before the run takes its result and waits; the API sends a decision once the books say so. A
 * decision that arrives while `closed` therefore waits for the review (refused when the run ends
 * without one, or does not come to it within earlyDecisionWaitMs); one meant for an earlier stay
 * in review is refused by the version it carries. Only a decision arriving while another is
 * applied is refused at once.
 */
export function reviewQueue(
  input: PaymentIntentInput,
  progress: PaymentIntentProgress,
  shape: Pick<IntentShape, 'laneRule'>,
) {
  const { intentId } = input;
  let review: 'closed' | 'waiting' | 'applying' | 'lane-rule' = 'closed';
  let decided: Decided | undefined;
  let ended = false;
  /** Decisions that came while `closed` and wait for the review. */
  let early = 0;
  const notInReview = () =>
    ApplicationFailure.create({
      type: ErrorName.notInReview,
      message: notInReviewMessage(intentId, progress.status),
      details: [{ intentId, status: progress.status }],
      nonRetryable: true,
    });
  setHandler<ReviewOutcome, [ReviewRequest], typeof resolveReviewUpdate>(
    resolveReviewUpdate,
    async (request) => {
      if (review === 'closed') {
        early += 1;
        try {
          // Normally a workflow task away; a run that has not come to review by then moved on
          // (another decision's retry is running, say), and the caller is answered now.
          await condition(() => review !== 'closed' || ended, earlyDecisionWaitMs);
        } finally {
          early -= 1;
        }
      }
      // The lane rule's look at the chain ends first: if it cancelled, this decision is too late.
      if (review === 'lane-rule') await condition(() => review !== 'lane-rule');
      if (review !== 'waiting') throw notInReview();
      review = 'applying';
      try {
        const result = await resolveReview({ intentId, ...request });
        decided = { action: request.decision.action, ...result };
        return result;
      } catch (error) {
        // The caller gets the refusal itself (ReviewRefused, NotInReview), not its wrapping.
        throw error instanceof ActivityFailure && error.cause ? error.cause : error;
      } finally {
        if (review === 'applying') review = 'waiting';
      }
    },
    {
      validator: () => {
        if (review === 'applying' || ended) throw notInReview();
      },
    },
  );

  /**
   * Waits for an operator's decision; meanwhile the lane rule is tried
   * (operations/abandoned-lane.ts) at once after a confirmation timeout, else once that long in
   * review, and again every confirmation timeout. A cancel it signs is followed like an operator's.
   */
  async function decisionOrLaneRule(): Promise<void> {
    const confirmTimeoutMs = input.confirmTimeoutMs ?? defaultConfirmTimeoutMs;
    let waitMs =
      progress.reasonCode === reasonCodeOfError(ErrorName.confirmationTimeout)
        ? 0
        : confirmTimeoutMs;
    for (;;) {
      if (waitMs > 0) await condition(() => decided !== undefined, waitMs);
      // An operator's decision goes first: one being applied, and one that waited for the review.
      await condition(() => decided !== undefined || (review === 'waiting' && early === 0));
      if (decided) return;
      review = 'lane-rule';
      const freed = await freeAbandonedLane({ intentId }).catch(() => null);
      if (freed) {
        decided = { action: 'cancel', ...freed };
        return;
      }
      review = 'waiting';
      waitMs = confirmTimeoutMs;
    }
  }

  return {
    /** Waits in review until a decision is applied (or the lane rule frees the lane): that one. */
    async decision(): Promise<Decided> {
      review = 'waiting';
      if (shape.laneRule()) {
        await decisionOrLaneRule();
      } else {
        await condition(() => decided !== undefined);
      }
      review = 'closed';
      const taken = decided!;
      decided = undefined;
      return taken;
    },
    /** The run ends: a decision still waiting for a review is refused before it does. */
    async end(): Promise<void> {
      ended = true;
      if (early > 0) await CancellationScope.nonCancellable(() => condition(() => early === 0));
    },
  };
}

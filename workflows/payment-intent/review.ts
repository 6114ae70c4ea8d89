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
): ReviewQueue {
  const queue = new ReviewQueue(input, progress, shape);
  setHandler<ReviewOutcome, [ReviewRequest], typeof resolveReviewUpdate>(
    resolveReviewUpdate,
    (request) => queue.apply(request),
    { validator: () => queue.refuseIfApplying() },
  );
  return queue;
}

class ReviewQueue {
  private review: 'closed' | 'waiting' | 'applying' | 'lane-rule' = 'closed';
  private decided: Decided | undefined;
  private ended = false;
  /** Decisions that came while `closed` and wait for the review. */
  private early = 0;

  constructor(
    private readonly input: PaymentIntentInput,
    private readonly progress: PaymentIntentProgress,
    private readonly shape: Pick<IntentShape, 'laneRule'>,
  ) {}

  private notInReview() {
    const { intentId } = this.input;
    const { status } = this.progress;
    return ApplicationFailure.create({
      type: ErrorName.notInReview,
      message: notInReviewMessage(intentId, status),
      details: [{ intentId, status }],
      nonRetryable: true,
    });
  }

  /** The validator: refused at once while another decision is applied, or after the end. */
  refuseIfApplying(): void {
    if (this.review === 'applying' || this.ended) throw this.notInReview();
  }

  /** An operator's decision, applied once the run waits in review (checked by an activity). */
  async apply(request: ReviewRequest): Promise<ReviewOutcome> {
    if (this.review === 'closed') {
      this.early += 1;
      try {
        // Normally a workflow task away; a run that has not come to review by then moved on
        // (another decision's retry is running, say), and the caller is answered now.
        await condition(() => this.review !== 'closed' || this.ended, earlyDecisionWaitMs);
      } finally {
        this.early -= 1;
      }
    }
    // The lane rule's look at the chain ends first: if it cancelled, this decision is too late.
    if (this.review === 'lane-rule') await condition(() => this.review !== 'lane-rule');
    if (this.review !== 'waiting') throw this.notInReview();
    this.review = 'applying';
    try {
      const result = await resolveReview({ intentId: this.input.intentId, ...request });
      this.decided = { action: request.decision.action, ...result };
      return result;
    } catch (error) {
      // The caller gets the refusal itself (ReviewRefused, NotInReview), not its wrapping.
      throw error instanceof ActivityFailure && error.cause ? error.cause : error;
    } finally {
      if (this.review === 'applying') this.review = 'waiting';
    }
  }

  /**
   * Waits for an operator's decision; meanwhile the lane rule is tried
   * (operations/abandoned-lane.ts) at once after a confirmation timeout, else once that long in
   * review, and again every confirmation timeout. A cancel it signs is followed like an operator's.
   */
  private async decisionOrLaneRule(): Promise<void> {
    const confirmTimeoutMs = this.input.confirmTimeoutMs ?? defaultConfirmTimeoutMs;
    let waitMs =
      this.progress.reasonCode === reasonCodeOfError(ErrorName.confirmationTimeout)
        ? 0
        : confirmTimeoutMs;
    for (;;) {
      if (waitMs > 0) await condition(() => this.decided !== undefined, waitMs);
      // An operator's decision goes first: one being applied, and one that waited for the review.
      await condition(
        () => this.decided !== undefined || (this.review === 'waiting' && this.early === 0),
      );
      if (this.decided) return;
      this.review = 'lane-rule';
      const freed = await freeAbandonedLane({ intentId: this.input.intentId }).catch(() => null);
      if (freed) {
        this.decided = { action: 'cancel', ...freed };
        return;
      }
      this.review = 'waiting';
      waitMs = confirmTimeoutMs;
    }
  }

  /** Waits in review until a decision is applied (or the lane rule frees the lane): that one. */
  async decision(): Promise<Decided> {
    this.review = 'waiting';
    if (this.shape.laneRule()) {
      await this.decisionOrLaneRule();
    } else {
      await condition(() => this.decided !== undefined);
    }
    this.review = 'closed';
    const taken = this.decided!;
    this.decided = undefined;
    return taken;
  }

  /** The run ends: a decision still waiting for a review is refused before it does. */
  async end(): Promise<void> {
    this.ended = true;
    if (this.early > 0) {
      await CancellationScope.nonCancellable(() => condition(() => this.early === 0));
    }
  }
}

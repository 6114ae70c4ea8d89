import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { RelayerActivities } from '../activities';
import type { AcquireThrottleResult } from '../activities/acquire-throttle';
import type { ConfirmResult } from '../activities/confirm';
import { IntentStatus, revertedReason } from '../domain/intent';
import { ErrorType } from '../domain/errors';
import type { ReviewDecision, ReviewOutcome, ReviewRequest } from '../domain/review';
import { throttleTaskQueue } from '../domain/task-queues';
import {
  confirmStep,
  dbStep,
  releaseStep,
  reviewStep,
  rpcStep,
  throttleStep,
} from './activity-profiles';
import { batchItemInReviewSignal, batchItemSignedSignal } from './batch-signals';
import { intentProgressQuery, type PaymentIntentProgress } from './intent-progress';
import { resolveReviewUpdate } from './review-update';
import { intentStatusKey } from './search-attributes';

export interface PaymentIntentInput {
  intentId: string;
  /**
   * Stay open in needs_review until an operator's decision arrives (the resolveReview update).
   * False only for a retry run started for an intent whose own workflow had already ended.
   */
  waitInReview?: boolean;
  /** How long a broadcast transaction may stay unconfirmed before a person looks at it. */
  confirmTimeoutMs?: number;
  /** The batch this intent is an item of: told once the item is signed (see payment-batch.ts). */
  batch?: { workflowId: string; index: number };
}

const defaultConfirmTimeoutMs = 30 * 60 * 1000;

const { markSettling, hold, closeIntent } = proxyActivities<RelayerActivities>(dbStep);
const { resolveReview } = proxyActivities<RelayerActivities>(reviewStep);
const { broadcast } = proxyActivities<RelayerActivities>(rpcStep);
const { confirm } = proxyActivities<RelayerActivities>(confirmStep);

/** Recorded in histories where needs_review waits for a decision; older ones ended there. */
const reviewWaitsPatch = 'review-waits-in-workflow';

/**
 * One payment intent: permit → settling → hold → broadcast → confirmations. The permit comes
 * before anything is written, so a throttled intent stays `authorized` with nothing held.
 * An intent that ends in needs_review stays open there, visible in the Web UI by its status
 * search attribute, until an operator's decision arrives as the `resolveReview` update: confirm
 * or fail end it, retry sends the same bytes again and follows them.
 */
export async function paymentIntent(input: PaymentIntentInput): Promise<PaymentIntentProgress> {
  const { intentId } = input;
  const progress: PaymentIntentProgress = {
    intentId,
    status: IntentStatus.authorized,
    txHash: null,
    blockNumber: null,
    reason: null,
    permitRefusals: 0,
    txHashes: [],
  };
  setHandler(intentProgressQuery, () => progress);
  const enter = (status: IntentStatus) => {
    if (status === progress.status) return;
    progress.status = status;
    upsertSearchAttributes([{ key: intentStatusKey, value: status }]);
  };

  let review: 'closed' | 'waiting' | 'applying' = 'closed';
  let decided: (ReviewOutcome & { action: ReviewDecision['action'] }) | undefined;
  setHandler<ReviewOutcome, [ReviewRequest], typeof resolveReviewUpdate>(
    resolveReviewUpdate,
    async (request) => {
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
        if (review === 'waiting') return;
        throw ApplicationFailure.create({
          type: ErrorType.notInReview,
          message: `intent ${intentId} is ${progress.status}, not waiting for a review decision`,
          details: [{ intentId, status: progress.status }],
          nonRetryable: true,
        });
      },
    },
  );

  for (;;) {
    await settle(input, progress, enter);
    if (progress.status !== IntentStatus.needsReview || input.waitInReview === false) break;
    if (!patched(reviewWaitsPatch)) break;
    if (input.batch) await tellBatch(batchItemInReviewSignal, input.batch);
    review = 'waiting';
    await condition(() => decided !== undefined);
    review = 'closed';
    const { action, status, txHash, blockNumber, reason } = decided!;
    decided = undefined;
    if (action !== 'retry') {
      if (txHash) noteTxHash(progress, txHash);
      Object.assign(progress, { blockNumber, reason });
      enter(status);
      break;
    }
    progress.reason = null;
    enter(IntentStatus.signed);
  }
  return progress;
}

/** Takes the intent as far as it goes: confirmed, failed, cancelled or needs_review. */
async function settle(
  input: PaymentIntentInput,
  progress: PaymentIntentProgress,
  enter: (status: IntentStatus) => void,
): Promise<void> {
  const { intentId } = input;
  let permitReleased: Promise<unknown> = Promise.resolve();
  try {
    const permit = await waitForPermit(intentId, progress);
    try {
      enter((await markSettling({ intentId })).status);
      enter((await hold({ intentId })).status);
      const sent = await broadcast({ intentId });
      noteTxHash(progress, sent.txHash);
      enter(sent.status);
      if (input.batch) await tellBatch(batchItemSignedSignal, input.batch);
    } finally {
      // Released while the confirmations are awaited: the permit covers the send, not the wait.
      permitReleased = CancellationScope.nonCancellable(() => releasePermit(permit));
    }
    const mined = await waitForConfirmations(intentId, input.confirmTimeoutMs, progress);
    if (mined.txHash) noteTxHash(progress, mined.txHash);
    progress.blockNumber = mined.blockNumber;
    if (mined.state === 'reverted') progress.reason = revertedReason;
    enter(mined.state === 'confirmed' ? IntentStatus.confirmed : IntentStatus.failed);
  } catch (error) {
    progress.reason = isCancellation(error) ? 'workflow cancelled' : describeFailure(error);
    // A cancelled workflow still closes its intent: one signed by then goes to review, one not
    // signed fails (a tenant's cancel has already made it `cancelled`, which closeIntent keeps).
    const closed = await CancellationScope.nonCancellable(() =>
      closeIntent({ intentId, reason: progress.reason! }),
    );
    enter(closed.status);
    if (closed.status === IntentStatus.cancelled) progress.reason = 'cancelled';
  }
  await permitReleased;
}

async function waitForPermit(
  intentId: string,
  progress: PaymentIntentProgress,
): Promise<Extract<AcquireThrottleResult, { granted: true }>> {
  const { acquireThrottle } = proxyActivities<RelayerActivities>({
    ...throttleStep,
    taskQueue: throttleTaskQueue(workflowInfo().taskQueue),
  });
  for (;;) {
    const result = await acquireThrottle({ intentId });
    if (result.granted) return result;
    progress.permitRefusals++;
    await sleep(result.retryAfterMs);
  }
}

/**
 * Tells the batch the item is signed (its wallet may take the next item) or waits in review (it
 * counts as ended). Never throws: a batch that is gone must not send a signed payment to review.
 */
async function tellBatch(
  signal: typeof batchItemSignedSignal,
  batch: { workflowId: string; index: number },
): Promise<void> {
  await getExternalWorkflowHandle(batch.workflowId)
    .signal(signal, batch.index)
    .catch(() => undefined);
}

/** Never throws: a release that cannot be delivered is covered by the permit's expiration. */
function releasePermit(permit: { permitId: string; releaseQueue: string }): Promise<unknown> {
  const { releaseThrottle } = proxyActivities<RelayerActivities>({
    ...releaseStep,
    taskQueue: permit.releaseQueue,
  });
  return releaseThrottle({ permitId: permit.permitId }).catch(() => false);
}

async function waitForConfirmations(
  intentId: string,
  timeoutMs: number = defaultConfirmTimeoutMs,
  progress: PaymentIntentProgress,
): Promise<Exclude<ConfirmResult, { state: 'pending' }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await confirm({ intentId });
    if (result.state !== 'pending') return result;
    if (result.txHash) noteTxHash(progress, result.txHash);
    if (Date.now() >= deadline) {
      throw ApplicationFailure.nonRetryable(
        `transaction ${progress.txHash} not confirmed within ${timeoutMs / 1000}s`,
        'ConfirmationTimeout',
      );
    }
    await sleep(Math.min(result.retryAfterMs, deadline - Date.now()));
  }
}

/** The intent's current transaction, and its history for the progress query. */
function noteTxHash(progress: PaymentIntentProgress, txHash: string): void {
  progress.txHash = txHash;
  if (!progress.txHashes.includes(txHash)) progress.txHashes.push(txHash);
}

function describeFailure(error: unknown): string {
  if (error instanceof ActivityFailure) {
    const last = describeFailure(error.cause);
    return error.retryState === 'TIMEOUT'
      ? `${error.activityType} still failing when its time ran out; last error ${last}`
      : last;
  }
  if (error instanceof ApplicationFailure) return `${error.type}: ${error.message}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  TemporalFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { RelayerActivities } from '../activities';
import type { AcquireThrottleResult } from '../activities/acquire-throttle';
import type { ConfirmResult } from '../activities/confirm';
import { cancelledOnChainReason, IntentStatus, revertedReason } from '../domain/intent';
import { statusOfOutcome } from '../domain/outcome-status';
import { ReasonCode, reasonCodeOfErrorType, type Reason } from '../domain/reason-codes';
import { ErrorType, notInReviewMessage } from '../domain/error-catalogue';
import { furtherTurn, turnReaches, type WalletTurn } from '../domain/wallet-turn';
import type { ReviewDecision, ReviewOutcome, ReviewRequest } from '../domain/review';
import { throttleTaskQueue } from '../domain/task-queues';
import {
  defaultConfirmTimeoutMs,
  defaultSendWindowMs,
  type IntentTimings,
} from '../domain/intent-timings';
import {
  confirmStep,
  dbStep,
  localDbStep,
  localPermitStep,
  localReleaseStep,
  releaseStep,
  reviewStep,
  rpcStep,
  throttleStep,
} from './activity-profiles';
import { batchItemInReviewSignal, batchItemSignedSignal, walletTurnSignal } from './batch-signals';
import { intentProgressQuery, type PaymentIntentProgress } from './intent-progress';
import { resolveReviewUpdate } from './review-update';
import { intentStatusKey, walletKey } from './search-attributes';

export interface PaymentIntentInput extends IntentTimings {
  intentId: string;
  /**
   * Stay open in needs_review until an operator's decision arrives (the resolveReview update).
   * False only for a retry run started for an intent whose own workflow had already ended.
   */
  waitInReview?: boolean;
  /** The batch this intent is an item of: told once the item is signed (see payment-batch.ts). */
  batch?: {
    workflowId: string;
    index: number;
    /**
     * Set by batches that order a wallet's items by turns: the item signs in its wallet's turn,
     * told by the step of the item before it, and the batch is not told it is signed.
     */
    walletTurn?: { batchId: string };
  };
}

/** The failure type of a transaction not confirmed in time (the intent goes to review). */
const confirmationTimeoutType = 'ConfirmationTimeout';

const { markSettling, hold, closeIntent } = proxyActivities<RelayerActivities>(dbStep);
const { resolveReview, freeAbandonedLane } = proxyActivities<RelayerActivities>(reviewStep);
/** The send, retried within the intent's send window (its scheduleToClose timeout). */
const broadcastWithin = (sendWindowMs = defaultSendWindowMs) =>
  proxyActivities<RelayerActivities>({ ...rpcStep, scheduleToCloseTimeout: sendWindowMs })
    .broadcast;
const { confirm } = proxyActivities<RelayerActivities>(confirmStep);
const here = {
  ...pick(
    proxyLocalActivities<RelayerActivities>(localDbStep),
    'markSettling',
    'hold',
    'walletTurnCame',
  ),
  ...pick(proxyLocalActivities<RelayerActivities>(localPermitStep), 'tryAcquirePermit'),
  ...pick(proxyLocalActivities<RelayerActivities>(localReleaseStep), 'releaseThrottle'),
};

/** Recorded in histories where needs_review waits for a decision; older ones ended there. */
const reviewWaitsPatch = 'review-waits-in-workflow';

/**
 * Recorded in histories whose permit, settling and hold run inside the workflow's own task (local
 * activities), and which show the status to visibility only where an operator filters on it.
 * Older histories took a task-queue round trip for each. The receipt looks stay activities: a
 * look can take many seconds of RPC under faults, and a local activity that long was seen
 * cancelled by the SDK while its workflow was evicted from a small cache, sending a paid intent
 * to review.
 */
const leanStepsPatch = 'lean-steps';

/**
 * Recorded in histories where an intent waiting in review may have its lane freed by the
 * relayer (the lane rule, operations/abandoned-lane.ts); older ones waited for a person only.
 */
const laneRulePatch = 'lane-rule';

/** Settling and held last milliseconds: visibility shows the statuses around them. */
const statusesVisibleInLean: ReadonlySet<IntentStatus> = new Set(
  Object.values(IntentStatus).filter(
    (status) => status !== IntentStatus.settling && status !== IntentStatus.held,
  ),
);

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
    reasonCode: null,
    permitRefusals: 0,
    txHashes: [],
  };
  setHandler(intentProgressQuery, () => progress);
  const lean = patched(leanStepsPatch);
  let visible: IntentStatus = IntentStatus.authorized;
  const enter = (status: IntentStatus) => {
    if (status === progress.status) return;
    progress.status = status;
    if (status === visible || (lean && !statusesVisibleInLean.has(status))) return;
    visible = status;
    upsertSearchAttributes([{ key: intentStatusKey, value: status }]);
  };

  let review: 'closed' | 'waiting' | 'applying' | 'lane-rule' = 'closed';
  let decided: (ReviewOutcome & { action: ReviewDecision['action'] }) | undefined;
  const notInReview = () =>
    ApplicationFailure.create({
      type: ErrorType.notInReview,
      message: notInReviewMessage(intentId, progress.status),
      details: [{ intentId, status: progress.status }],
      nonRetryable: true,
    });
  setHandler<ReviewOutcome, [ReviewRequest], typeof resolveReviewUpdate>(
    resolveReviewUpdate,
    async (request) => {
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
        if (review === 'waiting' || review === 'lane-rule') return;
        throw notInReview();
      },
    },
  );

  /**
   * Waits for an operator's decision; meanwhile the lane rule is tried (operations/abandoned-lane.ts)
   * at once after a confirmation timeout, else once that long in review, and again every
   * confirmation timeout. A cancel it signs is followed like an operator's.
   */
  async function decisionOrLaneRule(): Promise<void> {
    const confirmTimeoutMs = input.confirmTimeoutMs ?? defaultConfirmTimeoutMs;
    let waitMs = progress.reasonCode === ReasonCode.confirmationTimeout ? 0 : confirmTimeoutMs;
    for (;;) {
      if (waitMs > 0) await condition(() => decided !== undefined, waitMs);
      // An operator's decision being applied goes first.
      await condition(() => decided !== undefined || review === 'waiting');
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

  const turns = walletTurns(input);
  for (;;) {
    await settle(input, progress, enter, lean, turns);
    if (progress.status !== IntentStatus.needsReview || input.waitInReview === false) break;
    if (!patched(reviewWaitsPatch)) break;
    if (input.batch) await tellBatch(batchItemInReviewSignal, input.batch);
    review = 'waiting';
    if (patched(laneRulePatch)) {
      await decisionOrLaneRule();
    } else {
      await condition(() => decided !== undefined);
    }
    review = 'closed';
    const { action, status, txHash, blockNumber, reason, reasonCode } = decided!;
    decided = undefined;
    // A retry sends the same bytes again; a cancel sends its zero-value transfer at the nonce.
    if (action !== 'retry' && action !== 'cancel') {
      if (txHash) noteTxHash(progress, txHash);
      Object.assign(progress, { blockNumber, reason, reasonCode: reasonCode ?? null });
      enter(status);
      break;
    }
    progress.reason = null;
    progress.reasonCode = null;
    enter(IntentStatus.signed);
  }
  return progress;
}

/** Takes the intent as far as it goes: confirmed, failed, cancelled or needs_review. */
async function settle(
  input: PaymentIntentInput,
  progress: PaymentIntentProgress,
  enter: (status: IntentStatus) => void,
  lean: boolean,
  turns: WalletTurns | undefined,
): Promise<void> {
  const { intentId } = input;
  const steps = lean ? here : { markSettling, hold };
  const broadcast = broadcastWithin(input.sendWindowMs);
  const batchItem = turns && { batchItem: turns.item };
  let permitReleased: Promise<unknown> = Promise.resolve();
  try {
    // Before the permit: an item waiting for its turn holds nothing another one needs.
    const inTurns = turns && progress.status === IntentStatus.authorized ? turns : undefined;
    await inTurns?.waitFor('start', true);
    const permit = lean
      ? await takePermitHere(intentId, progress)
      : await waitForPermit(intentId, progress);
    let releasedBySend = false;
    let firstLookAfterMs = 0;
    try {
      enter((await steps.markSettling({ intentId })).status);
      enter((await steps.hold({ intentId, ...batchItem })).status);
      await inTurns?.waitFor('sign', false);
      const sent = await broadcast(
        lean ? { intentId, permitId: permit.permitId, ...batchItem } : { intentId },
      );
      releasedBySend = sent.permitReleased === true;
      firstLookAfterMs = sent.firstLookAfterMs ?? 0;
      noteTxHash(progress, sent.txHash);
      enter(sent.status);
      // An intent that named no wallet shows the one chosen for it once it is signed.
      if (sent.from && workflowInfo().typedSearchAttributes.get(walletKey) === undefined) {
        upsertSearchAttributes([{ key: walletKey, value: sent.from }]);
      }
      if (input.batch && !turns) await tellBatch(batchItemSignedSignal, input.batch);
    } finally {
      // Released while the confirmations are awaited: the permit covers the send, not the wait.
      if (!releasedBySend) {
        permitReleased = CancellationScope.nonCancellable(() =>
          lean ? releasePermitHere(permit) : releasePermit(permit),
        );
      }
    }
    // Looking before the receipt can be deep enough would only cost a look and a poll interval.
    if (firstLookAfterMs > 0) await sleep(firstLookAfterMs);
    const mined = await waitForConfirmations(intentId, input.confirmTimeoutMs, progress);
    if (mined.txHash) noteTxHash(progress, mined.txHash);
    progress.blockNumber = mined.blockNumber;
    if (mined.state === 'reverted') {
      progress.reason = revertedReason;
      progress.reasonCode = ReasonCode.reverted;
    }
    if (mined.state === 'cancelled') {
      progress.reason = cancelledOnChainReason;
      progress.reasonCode = ReasonCode.cancelledOnChain;
    }
    // Results recorded before tokens carry no reason; a token's own outcomes always do.
    if (mined.reason) progress.reason = mined.reason;
    if (mined.reasonCode) progress.reasonCode = mined.reasonCode;
    enter(statusOfOutcome(mined.state));
  } catch (error) {
    // A step that failed, or a cancellation, closes the intent. Anything else is a bug in this
    // code: it fails the workflow task, which Temporal retries (a fix deployed meanwhile takes
    // over), instead of ending payments.
    if (!(error instanceof TemporalFailure) && !isCancellation(error)) throw error;
    const { code: reasonCode, text: reason } = reasonOfFailure(error);
    Object.assign(progress, { reason, reasonCode });
    // A cancelled workflow still closes its intent: one signed by then goes to review, one not
    // signed fails (a tenant's cancel has already made it `cancelled`, which closeIntent keeps).
    const closed = await CancellationScope.nonCancellable(() =>
      closeIntent({ intentId, reason, reasonCode, ...batchItem }),
    );
    enter(closed.status);
    if (closed.status === IntentStatus.cancelled) {
      // A tenant's or operator's cancel got there first (closeIntent kept it).
      progress.reason = 'cancelled';
      progress.reasonCode = ReasonCode.cancelledByCaller;
    }
  }
  await permitReleased;
}

type Permit = Extract<AcquireThrottleResult, { granted: true }>;

type WalletTurns = NonNullable<ReturnType<typeof walletTurns>>;

/**
 * For a batch item that signs in its wallet's turn (domain/wallet-turn.ts): waits until it may
 * start (take its permit, settle, hold) and then until it may sign. It looks for itself once, as
 * it starts; after that the steps that hold, sign or end the items before it tell it
 * (walletTurnSignal), and the fleet's sweep tells it again if a word was lost. No timer of its
 * own: a wait costs no history events.
 */
function walletTurns(input: PaymentIntentInput) {
  const { batch } = input;
  if (!batch?.walletTurn) return undefined;
  const item = { batchId: batch.walletTurn.batchId, index: batch.index };
  let granted: WalletTurn = 'wait';
  setHandler(walletTurnSignal, (turn) => {
    granted = furtherTurn(granted, turn);
  });
  const look = async () => {
    granted = furtherTurn(granted, await here.walletTurnCame(item));
  };
  return {
    item,
    /** Until `wanted` is granted; `lookFirst` where no word may ever come (the item just started). */
    async waitFor(wanted: WalletTurn, lookFirst: boolean): Promise<void> {
      if (lookFirst && !turnReaches(granted, wanted)) await look();
      await condition(() => turnReaches(granted, wanted));
    },
  };
}

/**
 * Asks for a permit inside the workflow's task until one is granted; each refusal is a workflow
 * timer, nothing written. Under QUOTA_MODE=task-queue the permits come from the server's paced
 * queue instead.
 */
async function takePermitHere(intentId: string, progress: PaymentIntentProgress): Promise<Permit> {
  for (;;) {
    const result = await here.tryAcquirePermit({ intentId });
    if (result.granted) return result;
    if (result.reason === 'server-paced') return waitForPermit(intentId, progress);
    progress.permitRefusals++;
    await sleep(result.retryAfterMs);
  }
}

/**
 * Gives the permit back from inside the workflow's task if this process holds it (the workflow
 * stayed in the cache of the worker that took it); otherwise on the holder's own queue; a holder
 * that is gone is covered by the permit's expiration. Never throws.
 */
async function releasePermitHere(permit: Permit): Promise<unknown> {
  const released = await here.releaseThrottle({ permitId: permit.permitId }).catch(() => false);
  return released || releasePermit(permit);
}

async function waitForPermit(intentId: string, progress: PaymentIntentProgress): Promise<Permit> {
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
function releasePermit(permit: Permit): Promise<unknown> {
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
        confirmationTimeoutType,
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

/** Why a step's failure or a cancellation ended the intent: its code and words. */
function reasonOfFailure(error: unknown): Reason {
  if (isCancellation(error))
    return { code: ReasonCode.workflowCancelled, text: 'workflow cancelled' };
  if (error instanceof ActivityFailure) {
    const last = reasonOfFailure(error.cause);
    return error.retryState === 'TIMEOUT'
      ? {
          code: ReasonCode.stepTimedOut,
          text: `${error.activityType} still failing when its time ran out; last error ${last.text}`,
        }
      : last;
  }
  if (error instanceof ApplicationFailure) {
    return {
      code: error.type ? reasonCodeOfErrorType(error.type) : ReasonCode.internal,
      text: `${error.type}: ${error.message}`,
    };
  }
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { code: ReasonCode.internal, text };
}

/** The named members of an activity proxy (each proxy carries one set of options). */
function pick<T extends object, K extends keyof T>(from: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, from[key]])) as Pick<T, K>;
}

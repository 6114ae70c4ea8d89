import {
  allHandlersFinished,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  setHandler,
  sleep,
  TemporalFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { cancelledOnChainReason, IntentStatus, revertedReason } from '../../domain/intent';
import { statusOfOutcome } from '../../domain/outcome-status';
import { ReasonCode } from '../../domain/reason-codes';
import { batchItemInReviewSignal, batchItemSignedSignal } from '../payment-batch/signals';
import { intentProgressQuery, type PaymentIntentProgress } from './messages';
import { walletKey } from '../search-attributes';
import { waitForConfirmations } from './confirmation';
import { approvalGate, type ApprovalGate } from './approval';
import { refuseIfExpired, waitForNotBefore } from './deadlines';
import { reasonOfFailure } from './failures';
import { waitForFeeUnderCeiling } from './fee-ceiling';
import { pauseWaits, type PauseWaits } from './pause-waits';
import { longWaits } from './long-waits';
import type { PaymentIntentInput } from './input';
import { currentShape, patchedShape, type IntentShape } from './shape';
import { releasePermit, releasePermitInTask, takePermitInTask, waitForPermit } from './permits';
import { noteTxHash, statusKeeper, type EnterStatus } from './progress';
import { reviewQueue } from './review';
import { unminedRequests, type UnminedRequests } from './unmined-requests';
import { broadcastWithin, closeIntent, hold, inTask, markSettling } from './steps';
import { walletTurns, type WalletTurns } from './wallet-turns';

export type { PaymentIntentInput } from './input';

/**
 * One payment intent: permit → settling → hold → broadcast → confirmations. The permit comes
 * before anything is written, so a throttled intent stays `authorized` with nothing held.
 * An intent that ends in needs_review stays open there, visible in the Web UI by its status
 * search attribute, until an operator's decision arrives as the `resolveReview` update: confirm
 * or fail end it, retry sends the same bytes again and follows them.
 *
 * Every new intent runs this type: the shape its patches settled on, with no patch left to decide
 * (each one asked writes a marker and a visibility upsert). A new type rather than a patch: a
 * worker without it cannot take its tasks, where an old worker would run a patched start down
 * its old branch (docs/workflow-versions.md).
 */
export function paymentIntentV2(input: PaymentIntentInput): Promise<PaymentIntentProgress> {
  return runIntent(input, currentShape);
}

/**
 * The intents started before paymentIntentV2, whose histories say which shape they took: the
 * patches they recorded decide (workflows/payment-intent/patches.ts). Kept until no run of this
 * type is open; nothing starts it any more.
 */
export function paymentIntent(input: PaymentIntentInput): Promise<PaymentIntentProgress> {
  // Asked before the run's first command, as the patch always was (handlers are no commands).
  return runIntent(input, patchedShape());
}

async function runIntent(
  input: PaymentIntentInput,
  shape: IntentShape,
): Promise<PaymentIntentProgress> {
  const { intentId } = input;
  const progress: PaymentIntentProgress = {
    intentId,
    status: input.awaitingApproval ? IntentStatus.awaitingApproval : IntentStatus.authorized,
    txHash: null,
    blockNumber: null,
    reason: null,
    reasonCode: null,
    permitRefusals: 0,
    txHashes: [],
  };
  setHandler(intentProgressQuery, () => progress);
  const approval = approvalGate(input, progress);
  const { localSteps } = shape;
  const enter = statusKeeper(progress, localSteps);
  const review = reviewQueue(input, progress, shape);
  const turns = walletTurns(input);
  const requests = unminedRequests(intentId, progress);
  const waits = longWaits(shape);
  const pauses = pauseWaits();
  for (;;) {
    await runToOutcome(input, progress, enter, {
      localSteps,
      turns,
      requests,
      approval,
      waits,
      pauses,
    });
    if (progress.status !== IntentStatus.needsReview || input.waitInReview === false) break;
    if (!shape.reviewWaits()) break;
    if (input.batch) await tellBatch(batchItemInReviewSignal, input.batch);
    await waits.enter();
    const { action, status, txHash, blockNumber, reason, reasonCode } = await review.decision();
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
  await review.end();
  // A cancel that lost the race to the payment's mining answers its caller before the run ends.
  if (!allHandlersFinished()) {
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  }
  return progress;
}

/**
 * Takes the intent as far as it goes: confirmed, failed, cancelled or needs_review (or, awaiting
 * approval, rejected).
 */
async function runToOutcome(
  input: PaymentIntentInput,
  progress: PaymentIntentProgress,
  enter: EnterStatus,
  parts: {
    localSteps: boolean;
    turns: WalletTurns | undefined;
    requests: UnminedRequests;
    approval?: ApprovalGate;
    waits: ReturnType<typeof longWaits>;
    pauses: PauseWaits;
  },
): Promise<void> {
  const { localSteps, turns, requests, approval, waits, pauses } = parts;
  const { intentId } = input;
  const steps = localSteps ? inTask : { markSettling, hold };
  const broadcast = broadcastWithin(input.sendWindowMs);
  const batchItem = turns && { batchItem: turns.item };
  let permitReleased: Promise<unknown> = Promise.resolve();
  try {
    if (approval && progress.status === IntentStatus.awaitingApproval) {
      // Before anything else: an unapproved intent takes no permit and holds nothing.
      await waits.enter();
      const decided = await approval.decision();
      enter(decided);
      if (decided !== IntentStatus.authorized) return;
    }
    await waitForNotBefore(input, waits);
    await waitForFeeUnderCeiling(input);
    // Before the permit: an item waiting for its turn holds nothing another one needs.
    const inTurns = turns && progress.status === IntentStatus.authorized ? turns : undefined;
    await inTurns?.waitFor('start', true);
    const permitWaits = { validUntil: input.validUntil, pauses };
    const permit = localSteps
      ? await takePermitInTask(intentId, progress, permitWaits)
      : await waitForPermit(intentId, progress, permitWaits);
    let releasedBySend = false;
    let firstLookAfterMs = 0;
    try {
      // A permit granted after the deadline is given back unused (finally, below).
      refuseIfExpired(input);
      enter((await steps.markSettling({ intentId })).status);
      enter((await steps.hold({ intentId, ...batchItem })).status);
      await inTurns?.waitFor('sign', false);
      const sent = await broadcast(
        localSteps ? { intentId, permitId: permit.permitId, ...batchItem } : { intentId },
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
          localSteps ? releasePermitInTask(permit) : releasePermit(permit),
        );
      }
    }
    // Looking before the receipt can be deep enough would only cost a look and a poll interval.
    if (firstLookAfterMs > 0) await sleep(firstLookAfterMs);
    const mined = await waitForConfirmations(intentId, input.confirmTimeoutMs, progress, requests);
    noteMined(progress, mined);
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

/** What the chain mined for the intent: its transaction, block and, when not paid, why. */
function noteMined(progress: PaymentIntentProgress, mined: Mined): void {
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
}

type Mined = Awaited<ReturnType<typeof waitForConfirmations>>;

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

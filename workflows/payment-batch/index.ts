import {
  CancellationScope,
  condition,
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { ScheduledItem } from '../../activities/batch/load-batch-items';
import {
  BatchMode,
  emptyCounts,
  isItemFailure,
  itemsPerRun,
  type BatchCounts,
  type BatchItemOutcome,
  type BatchStatus,
} from '../../domain/batch';
import { defaultApprovalTtlMs } from '../../domain/intent-timings';
import { ReasonCode } from '../../domain/reason-codes';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { approvalGate } from '../approval-gate';
import { paymentIntent, paymentIntentV2 } from '../payment-intent';
import { itemChildOptions, type AdmittedItem } from './child';
import type { CarriedState, PaymentBatchInput, PaymentBatchResult } from './input';
import { intentV2ChildrenPatch, stopWithNothingRunningPatch, walletTurnsPatch } from './patches';
import { BatchSchedule } from './schedule';
import {
  batchItemInReviewSignal,
  batchItemSignedSignal,
  batchProgressQuery,
  cancelBatchSignal,
  type BatchProgress,
} from './signals';
import {
  admitBatchItem,
  cancelBatchItems,
  decideBatchApproval,
  finishBatch,
  loadBatchItems,
  recordItemOutcome,
  skipPendingItems,
} from './steps';

export type { PaymentBatchInput, PaymentBatchResult } from './input';

/** Pages of items read at a time; a few times the concurrency keeps every slot fed. */
const pageSize = 200;
/** How often an item whose workflow cannot be followed is looked at in the database. */
const outcomePollMs = 5000;

/**
 * A batch of payouts: every item becomes a paymentIntentV2 child workflow, at most `concurrency` at
 * once, the others waiting in the database (not in any process's memory). Items start in input
 * order; those of one sending wallet sign in their wallet's turn, so their nonces follow the
 * input (schedule.ts). Results live in the database by item index; the workflow keeps
 * only counts, and continues as new every `itemsPerRun` items, or when Temporal suggests it
 * (after its running items end), to keep its history small whatever the batch size.
 */
export async function paymentBatch(input: PaymentBatchInput): Promise<PaymentBatchResult> {
  const { batchId, itemCount, concurrency, mode } = input;
  const walletTurns = patched(walletTurnsPatch);
  const state: CarriedState = input.carried ?? {
    startedBelow: 0,
    startedAhead: [],
    counts: emptyCounts(),
    stopCause: null,
    cancelled: false,
  };
  const schedule = new BatchSchedule(state, walletTurns ? 'turns' : 'one-unsigned');
  let startedThisRun = 0;
  const running = new Map<number, ScheduledItem & { intentId: string }>();
  let loadedUpTo = state.startedBelow;
  let stopHandled = false;
  let wakeUp = false;

  /** Items whose workflow waits in needs_review: ended, as far as this batch is concerned. */
  const inReview = new Set<number>();

  setHandler(batchItemSignedSignal, (index) => {
    schedule.signedOrEnded(index);
    wakeUp = true;
  });
  setHandler(batchItemInReviewSignal, (index) => {
    inReview.add(index);
  });
  setHandler(cancelBatchSignal, (reason) => {
    if (state.stopCause === null) {
      state.stopCause = { code: ReasonCode.cancelledByCaller, text: `cancelled: ${reason}` };
      state.cancelled = true;
    }
    wakeUp = true;
  });
  setHandler(batchProgressQuery, (): BatchProgress => ({
    batchId,
    itemCount,
    started: schedule.startedCount,
    running: running.size,
    counts: state.counts,
    stopCause: state.stopCause,
  }));

  const stopping = () => state.stopCause !== null;
  const runIsFull = () =>
    startedThisRun >= (input.itemsPerRun ?? itemsPerRun) || workflowInfo().continueAsNewSuggested;
  const allStarted = () => schedule.pendingCount === 0 && loadedUpTo >= itemCount;

  function itemEnded(item: ScheduledItem, outcome: BatchItemOutcome): void {
    // A count carried from a run before it was known (expired) starts from nothing.
    const key = outcome as keyof BatchCounts;
    state.counts[key] = (state.counts[key] ?? 0) + 1;
    schedule.signedOrEnded(item.index);
    running.delete(item.index);
    if (mode === BatchMode.failFast && isItemFailure(outcome) && state.stopCause === null) {
      state.stopCause = {
        code: ReasonCode.itemFailed,
        text: `item ${item.index} ended ${outcome}`,
      };
    }
    wakeUp = true;
  }

  async function follow(item: ScheduledItem, admitted: AdmittedItem): Promise<void> {
    // Started elsewhere already, or failed: either way the intent's own row says how it ends.
    const child = executeChild(
      patched(intentV2ChildrenPatch) ? paymentIntentV2 : paymentIntent,
      itemChildOptions({ item, admitted, batchId, timings: input.timings, walletTurns }),
    ).catch(() => undefined);
    await Promise.race([child, condition(() => inReview.has(item.index))]);
    for (;;) {
      const outcome = await recordItemOutcome({ batchId, index: item.index });
      if (outcome !== null) return itemEnded(item, outcome);
      await sleep(outcomePollMs);
    }
  }

  /** Starts items while there are free slots; returns how long to wait if admission said so. */
  async function startWhatFits(): Promise<number | undefined> {
    while (running.size < concurrency && !stopping() && !runIsFull()) {
      if (schedule.pendingCount < concurrency && loadedUpTo < itemCount) {
        const page = await loadBatchItems({ batchId, fromIndex: loadedUpTo, count: pageSize });
        loadedUpTo = page.length > 0 ? page[page.length - 1]!.index + 1 : itemCount;
        schedule.add(page);
        continue;
      }
      const item = schedule.nextStartable();
      if (!item) return undefined;
      const admitted = await admitBatchItem({ batchId, index: item.index });
      if (admitted.kind === 'wait') return admitted.retryAfterMs;
      schedule.started(item);
      startedThisRun++;
      if (admitted.kind === 'rejected') {
        itemEnded(item, 'rejected');
        continue;
      }
      running.set(item.index, { ...item, intentId: admitted.intentId });
      // Not cancellable: cancelling the batch workflow itself must not cancel a payment that may
      // be signed; stop() cancels only what has nothing signed.
      void CancellationScope.nonCancellable(() => follow(item, admitted));
    }
    return undefined;
  }

  /** Once: nothing more starts, and running items with nothing signed are cancelled. */
  async function stop(): Promise<void> {
    stopHandled = true;
    state.counts.skipped += await skipPendingItems({ batchId });
    schedule.skipPending();
    loadedUpTo = itemCount;
    const cancelled = await cancelBatchItems({
      batchId,
      intentIds: [...running.values()].map((item) => item.intentId),
      why: state.stopCause!.text,
    });
    for (const intentId of cancelled) {
      // A shortcut only: the item's workflow finds its intent cancelled at its next step anyway.
      await getExternalWorkflowHandle(paymentIntentWorkflowId(intentId))
        .cancel()
        .catch(() => undefined);
    }
  }

  async function run(): Promise<void> {
    const somethingChanged = () => wakeUp || (stopping() && !stopHandled);
    for (;;) {
      // Cleared before looking, so a change made while we look (an item ending, a signal) is
      // never lost: the wait below then returns at once and we look again.
      wakeUp = false;
      if (stopping() && !stopHandled) await stop();
      const backoffMs = await startWhatFits();
      if (running.size === 0 && (stopping() || allStarted() || runIsFull())) {
        // Stopped by an item refused at admission, with nothing running: skip the rest too.
        if (stopping() && !stopHandled && patched(stopWithNothingRunningPatch)) await stop();
        return;
      }
      if (backoffMs === undefined) await condition(somethingChanged);
      else await condition(somethingChanged, backoffMs);
    }
  }

  // A batch awaiting approval (only new starts say so: running histories replay unchanged) waits
  // for one decision before any item starts; rejected or expired, nothing starts.
  if (input.awaitingApproval && !input.carried) {
    const gate = approvalGate<BatchStatus>({
      subject: { kind: 'batch', id: batchId },
      ttlMs: input.timings?.approvalTtlMs ?? defaultApprovalTtlMs,
      apply: (decision) => decideBatchApproval({ batchId, ...decision }),
    });
    const status = await gate.decision();
    if (status !== 'running') {
      state.counts.skipped += await skipPendingItems({ batchId });
      const code = gate.expired() ? ReasonCode.approvalExpired : ReasonCode.rejectedByApprover;
      return { batchId, counts: state.counts, stopCause: { code, text: status } };
    }
  }

  try {
    await run();
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // Cancelled through Temporal (the Web UI, `temporal workflow cancel`): the same as the
    // cancel signal, finished where cancellation cannot reach.
    state.stopCause ??= {
      code: ReasonCode.workflowCancelled,
      text: 'cancelled: the batch workflow was cancelled',
    };
    state.cancelled = true;
    await CancellationScope.nonCancellable(run);
  }

  if (!stopping() && !allStarted()) {
    return continueAsNew<typeof paymentBatch>({
      ...input,
      carried: { ...state, ...schedule.carried() },
    });
  }
  await CancellationScope.nonCancellable(() =>
    finishBatch({
      batchId,
      status: state.cancelled ? 'cancelled' : state.stopCause ? 'stopped' : 'completed',
      cause: state.stopCause,
    }),
  );
  return { batchId, counts: state.counts, stopCause: state.stopCause };
}

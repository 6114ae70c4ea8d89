import {
  CancellationScope,
  continueAsNew,
  isCancellation,
  patched,
  setHandler,
} from '@temporalio/workflow';
import { emptyCounts, type BatchStatus } from '../../domain/batch';
import { defaultApprovalTtlMs } from '../../domain/intent-timings';
import { ReasonCode } from '../../domain/reason-codes';
import { approvalGate } from '../approval-gate';
import type { CarriedState, PaymentBatchInput, PaymentBatchResult } from './input';
import { walletTurnsPatch } from './patches';
import { BatchSchedule } from './schedule';
import { BatchRun } from './batch-run';
import {
  batchItemInReviewSignal,
  batchItemSignedSignal,
  batchProgressQuery,
  cancelBatchSignal,
  type BatchProgress,
} from './signals';
import { decideBatchApproval, finishBatch, skipPendingItems } from './steps';

export type { PaymentBatchInput, PaymentBatchResult } from './input';

/**
 * A batch of payouts: every item becomes a paymentIntentV2 child workflow, at most `concurrency` at
 * once, the others waiting in the database (not in any process's memory). Items start in input
 * order; those of one sending wallet sign in their wallet's turn, so their nonces follow the
 * input (schedule.ts). Results live in the database by item index; the workflow keeps
 * only counts, and continues as new every `itemsPerRun` items, or when Temporal suggests it
 * (after its running items end), to keep its history small whatever the batch size.
 */
export async function paymentBatch(input: PaymentBatchInput): Promise<PaymentBatchResult> {
  const { batchId, itemCount } = input;
  const walletTurns = patched(walletTurnsPatch);
  const state: CarriedState = input.carried ?? {
    startedBelow: 0,
    startedAhead: [],
    counts: emptyCounts(),
    stopCause: null,
    cancelled: false,
  };
  const schedule = new BatchSchedule(state, walletTurns ? 'turns' : 'one-unsigned');
  const batch = new BatchRun(input, state, schedule, walletTurns);

  setHandler(batchItemSignedSignal, (index) => {
    schedule.signedOrEnded(index);
    batch.wakeUp = true;
  });
  setHandler(batchItemInReviewSignal, (index) => {
    batch.inReview.add(index);
  });
  setHandler(cancelBatchSignal, (reason) => {
    if (state.stopCause === null) {
      state.stopCause = { code: ReasonCode.cancelledByCaller, text: `cancelled: ${reason}` };
      state.cancelled = true;
    }
    batch.wakeUp = true;
  });
  setHandler(batchProgressQuery, (): BatchProgress => ({
    batchId,
    itemCount,
    started: schedule.startedCount,
    running: batch.running.size,
    counts: state.counts,
    stopCause: state.stopCause,
  }));

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
    await batch.run();
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // Cancelled through Temporal (the Web UI, `temporal workflow cancel`): the same as the
    // cancel signal, finished where cancellation cannot reach.
    state.stopCause ??= {
      code: ReasonCode.workflowCancelled,
      text: 'cancelled: the batch workflow was cancelled',
    };
    state.cancelled = true;
    await CancellationScope.nonCancellable(() => batch.run());
  }

  if (!batch.stopping() && !batch.allStarted()) {
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

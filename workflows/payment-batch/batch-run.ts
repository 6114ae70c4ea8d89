import {
  CancellationScope,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  patched,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { ScheduledItem } from '../../activities/batch/load-batch-items';
import {
  BatchMode,
  isItemFailure,
  itemsPerRun,
  type BatchCounts,
  type BatchItemOutcome,
} from '../../domain/batch';
import { ReasonCode } from '../../domain/reason-codes';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { paymentIntent, paymentIntentV2 } from '../payment-intent';
import { itemChildOptions, type AdmittedItem } from './child';
import type { CarriedState, PaymentBatchInput } from './input';
import { intentV2ChildrenPatch, stopWithNothingRunningPatch } from './patches';
import type { BatchSchedule } from './schedule';
import {
  admitBatchItem,
  cancelBatchItems,
  loadBatchItems,
  recordItemOutcome,
  skipPendingItems,
} from './steps';

/** Pages of items read at a time; a few times the concurrency keeps every slot fed. */
const pageSize = 200;
/** How often an item whose workflow cannot be followed is looked at in the database. */
const outcomePollMs = 5000;

/**
 * One run of a batch (until it continues as new): items started while slots are free, each
 * followed to its end, a stop carried out once. The workflow's signals change it between looks.
 */
export class BatchRun {
  readonly running = new Map<number, ScheduledItem & { intentId: string }>();
  /** Items whose workflow waits in needs_review: ended, as far as this batch is concerned. */
  readonly inReview = new Set<number>();
  /** Set by whatever changed (an item ending, a signal): the run looks again. */
  wakeUp = false;
  private startedThisRun = 0;
  private loadedUpTo: number;
  private stopHandled = false;

  constructor(
    private readonly input: PaymentBatchInput,
    readonly state: CarriedState,
    readonly schedule: BatchSchedule,
    private readonly walletTurns: boolean,
  ) {
    this.loadedUpTo = state.startedBelow;
  }

  stopping(): boolean {
    return this.state.stopCause !== null;
  }

  allStarted(): boolean {
    return this.schedule.pendingCount === 0 && this.loadedUpTo >= this.input.itemCount;
  }

  private runIsFull(): boolean {
    return (
      this.startedThisRun >= (this.input.itemsPerRun ?? itemsPerRun) ||
      workflowInfo().continueAsNewSuggested
    );
  }

  private itemEnded(item: ScheduledItem, outcome: BatchItemOutcome): void {
    // A count carried from a run before it was known (expired) starts from nothing.
    const key = outcome as keyof BatchCounts;
    this.state.counts[key] = (this.state.counts[key] ?? 0) + 1;
    this.schedule.signedOrEnded(item.index);
    this.running.delete(item.index);
    if (
      this.input.mode === BatchMode.failFast &&
      isItemFailure(outcome) &&
      this.state.stopCause === null
    ) {
      this.state.stopCause = {
        code: ReasonCode.itemFailed,
        text: `item ${item.index} ended ${outcome}`,
      };
    }
    this.wakeUp = true;
  }

  private async follow(item: ScheduledItem, admitted: AdmittedItem): Promise<void> {
    // Started elsewhere already, or failed: either way the intent's own row says how it ends.
    const child = executeChild(
      patched(intentV2ChildrenPatch) ? paymentIntentV2 : paymentIntent,
      itemChildOptions({
        item,
        admitted,
        batchId: this.input.batchId,
        timings: this.input.timings,
        walletTurns: this.walletTurns,
      }),
    ).catch(() => undefined);
    await Promise.race([child, condition(() => this.inReview.has(item.index))]);
    for (;;) {
      const outcome = await recordItemOutcome({ batchId: this.input.batchId, index: item.index });
      if (outcome !== null) return this.itemEnded(item, outcome);
      await sleep(outcomePollMs);
    }
  }

  /** Starts items while there are free slots; returns how long to wait if admission said so. */
  private async startWhatFits(): Promise<number | undefined> {
    while (this.running.size < this.input.concurrency && !this.stopping() && !this.runIsFull()) {
      if (
        this.schedule.pendingCount < this.input.concurrency &&
        this.loadedUpTo < this.input.itemCount
      ) {
        const page = await loadBatchItems({
          batchId: this.input.batchId,
          fromIndex: this.loadedUpTo,
          count: pageSize,
        });
        this.loadedUpTo = page.length > 0 ? page[page.length - 1]!.index + 1 : this.input.itemCount;
        this.schedule.add(page);
        continue;
      }
      const item = this.schedule.nextStartable();
      if (!item) return undefined;
      const admitted = await admitBatchItem({ batchId: this.input.batchId, index: item.index });
      if (admitted.kind === 'wait') return admitted.retryAfterMs;
      this.schedule.started(item);
      this.startedThisRun++;
      if (admitted.kind === 'rejected') {
        this.itemEnded(item, 'rejected');
        continue;
      }
      this.running.set(item.index, { ...item, intentId: admitted.intentId });
      // Not cancellable: cancelling the batch workflow itself must not cancel a payment that may
      // be signed; stop() cancels only what has nothing signed.
      void CancellationScope.nonCancellable(() => this.follow(item, admitted));
    }
    return undefined;
  }

  /** Once: nothing more starts, and running items with nothing signed are cancelled. */
  private async stop(): Promise<void> {
    this.stopHandled = true;
    this.state.counts.skipped += await skipPendingItems({ batchId: this.input.batchId });
    this.schedule.skipPending();
    this.loadedUpTo = this.input.itemCount;
    const cancelled = await cancelBatchItems({
      batchId: this.input.batchId,
      intentIds: [...this.running.values()].map((item) => item.intentId),
      why: this.state.stopCause!.text,
    });
    for (const intentId of cancelled) {
      // A shortcut only: the item's workflow finds its intent cancelled at its next step anyway.
      await getExternalWorkflowHandle(paymentIntentWorkflowId(intentId))
        .cancel()
        .catch(() => undefined);
    }
  }

  async run(): Promise<void> {
    const somethingChanged = () => this.wakeUp || (this.stopping() && !this.stopHandled);
    for (;;) {
      // Cleared before looking, so a change made while we look (an item ending, a signal) is
      // never lost: the wait below then returns at once and we look again.
      this.wakeUp = false;
      if (this.stopping() && !this.stopHandled) await this.stop();
      const backoffMs = await this.startWhatFits();
      if (this.running.size === 0 && (this.stopping() || this.allStarted() || this.runIsFull())) {
        // Stopped by an item refused at admission, with nothing running: skip the rest too.
        if (this.stopping() && !this.stopHandled && patched(stopWithNothingRunningPatch))
          await this.stop();
        return;
      }
      if (backoffMs === undefined) await condition(somethingChanged);
      else await condition(somethingChanged, backoffMs);
    }
  }
}

import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { BatchCounts } from '../domain/batch';

/** From an item's workflow to its batch: the item is signed, so its wallet may take the next. */
export const batchItemSignedSignal = defineSignal<[index: number]>('batchItemSigned');

/**
 * From an item's workflow to its batch: the item waits in needs_review for an operator, so for
 * the batch it has ended (its result shows the live status, whatever the operator decides).
 */
export const batchItemInReviewSignal = defineSignal<[index: number]>('batchItemInReview');

/** Stop starting items; cancel the running ones with nothing signed; follow the rest. */
export const cancelBatchSignal = defineSignal<[reason: string]>('cancelBatch');

export interface BatchProgress {
  batchId: string;
  itemCount: number;
  /** Items started (or rejected at admission) so far, all runs together. */
  started: number;
  running: number;
  counts: BatchCounts;
  /** Why the batch stopped starting items (cancelled, or the first failure in fail_fast). */
  stopCause: string | null;
}

export const batchProgressQuery = defineQuery<BatchProgress>('batchProgress');

import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { BatchCounts } from '../../domain/batch';
import type { Reason } from '../../domain/reason-codes';
import type { WalletTurn } from '../../domain/wallet-turn';

/**
 * From an item's workflow to its batch: the item is signed, so its wallet may take the next.
 * Sent by items of batches that started before wallet turns (workflows/payment-batch/).
 */
export const batchItemSignedSignal = defineSignal<[index: number]>('batchItemSigned');

/**
 * To a batch item's workflow, from the step that held, signed or ended unsigned an item before it
 * of the same wallet: how far the item may go now (activities/wallet-turn.ts).
 */
export const walletTurnSignal = defineSignal<[turn: WalletTurn]>('walletTurn');

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
  stopCause: Reason | null;
}

export const batchProgressQuery = defineQuery<BatchProgress>('batchProgress');

import type { BatchCounts, BatchMode } from '../../domain/batch';
import type { IntentTimings } from '../../domain/intent-timings';
import type { Reason } from '../../domain/reason-codes';

// What a batch's workflow is started (and continued as new) with, and what it ends with.

export interface PaymentBatchInput {
  batchId: string;
  itemCount: number;
  concurrency: number;
  mode: BatchMode;
  /** Items one run starts before it continues as new (default itemsPerRun). */
  itemsPerRun?: number;
  /** What earlier runs did; set by continue-as-new. */
  carried?: CarriedState;
  /** The send window and confirmation timeout its items start with. */
  timings?: IntentTimings;
  /** An item crosses its approval threshold: the batch waits for one decision first. */
  awaitingApproval?: boolean;
}

export interface CarriedState {
  /** Every item below this index was started (or rejected, or skipped). */
  startedBelow: number;
  /** Items at or above startedBelow that were started out of order (another wallet was busy). */
  startedAhead: number[];
  counts: BatchCounts;
  stopCause: Reason | null;
  cancelled: boolean;
}

export interface PaymentBatchResult {
  batchId: string;
  counts: BatchCounts;
  stopCause: Reason | null;
}

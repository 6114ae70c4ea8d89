import type { IntentStatus } from './intent';

/**
 * A batch of payouts: each item becomes a payment intent, at most `concurrency` running at once.
 * `collect_all` (the default for money) runs every item; `fail_fast` stops starting items at the
 * first one that does not end confirmed.
 */
export const BatchMode = { collectAll: 'collect_all', failFast: 'fail_fast' } as const;
export type BatchMode = (typeof BatchMode)[keyof typeof BatchMode];

/**
 * How an item ended: its intent's final status, or `rejected` (its intent was refused at
 * admission: bad wallet, no balance) or `skipped` (never started: the batch was cancelled or
 * stopped by a failure first).
 */
export type BatchItemOutcome = IntentStatus | 'rejected' | 'skipped';

export const batchWorkflowId = (batchId: string): string => `payment-batch-${batchId}`;

/** Items one workflow run starts before it continues as new, keeping its history small. */
export const itemsPerRun = 500;

export interface BatchCounts {
  confirmed: number;
  failed: number;
  needs_review: number;
  cancelled: number;
  rejected: number;
  skipped: number;
  /** An item's intent whose validUntil (its batch's) passed before it was signed. */
  expired: number;
}

export const emptyCounts = (): BatchCounts => ({
  confirmed: 0,
  failed: 0,
  needs_review: 0,
  cancelled: 0,
  rejected: 0,
  skipped: 0,
  expired: 0,
});

/** Outcomes that count as the batch's failure in fail_fast mode. */
export const isItemFailure = (outcome: BatchItemOutcome): boolean =>
  outcome !== 'confirmed' && outcome !== 'skipped' && outcome !== 'cancelled';

/**
 * Where a batch stands: `awaiting_approval` (an item crosses its approval threshold: one decision
 * first), `running`, then `completed`, `stopped` (fail_fast), `cancelled`, or `rejected` (not
 * approved: nothing started).
 */
export type BatchStatus =
  'awaiting_approval' | 'running' | 'completed' | 'cancelled' | 'stopped' | 'rejected';

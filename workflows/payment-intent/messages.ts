import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalOutcome, ApprovalRequest } from '../../domain/approval';
import type { IntentStatus } from '../../domain/intent';
import type { ReasonCode } from '../../domain/reason-codes';
import type {
  ReviewOutcome,
  ReviewRequest,
  SpeedUpRequest,
  UnminedCancelRequest,
} from '../../domain/review';

/**
 * Every message a payment's workflow takes: what it answers (a query), what it is told (signals)
 * and what it is asked to do (updates, refused before they reach the history when the workflow
 * is not where they apply). Their names are in recorded histories: never renamed.
 */

/** What an intent's workflow answers to `intentProgress`: where it is, for a person or a script. */
export interface PaymentIntentProgress {
  intentId: string;
  status: IntentStatus;
  txHash: string | null;
  blockNumber: string | null;
  reason: string | null;
  /** The reason's code (domain/reason-codes.ts); absent in results recorded before codes. */
  reasonCode?: ReasonCode | null;
  /** Times the throttle said "not now" before this intent got its permit. */
  permitRefusals: number;
  /** Every transaction hash that has been the intent's, in order (replacements, re-signs). */
  txHashes: string[];
}

export const intentProgressQuery = defineQuery<PaymentIntentProgress>('intentProgress');

/** Sent by an operator's resume to each intent its pause held back, oldest first. */
export const intentResumedSignal = defineSignal('intentResumed');

/**
 * Sent by a process following the chain's blocks (workers/block-follower.ts) when a block holds
 * one of the intent's transactions, or outprices its bid: a hint to look now instead of at the
 * next spaced look. The look itself still reads the receipt at its depth.
 */
export const transactionSeenSignal = defineSignal('transactionSeen');

/** A second key's decision on an intent (or a batch) awaiting approval. */
export const decideApprovalUpdate = defineUpdate<ApprovalOutcome<string>, [ApprovalRequest]>(
  'decideApproval',
);

/** An operator's decision for an intent waiting in needs_review. */
export const resolveReviewUpdate = defineUpdate<ReviewOutcome, [ReviewRequest]>('resolveReview');

/**
 * A tenant's or operator's cancel of a payment sent but not mined: a zero-value transfer at its
 * nonce, followed with the payment's own transactions (refused unless signed or confirming, or
 * while another cancel is being signed).
 */
export const cancelUnminedUpdate = defineUpdate<ReviewOutcome, [UnminedCancelRequest]>(
  'cancelUnmined',
);

/**
 * A tenant's or operator's speed-up of a payment sent but not mined: the payment signed again at
 * its nonce with a higher bid, followed with its other transactions (refused as the cancel is).
 */
export const speedUpUpdate = defineUpdate<ReviewOutcome, [SpeedUpRequest]>('speedUp');

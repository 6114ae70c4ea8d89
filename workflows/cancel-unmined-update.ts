import { defineUpdate } from '@temporalio/workflow';
import type { ReviewOutcome, UnminedCancelRequest } from '../domain/review';

/**
 * A tenant's or operator's cancel of a payment sent but not mined: a zero-value transfer at its
 * nonce, followed with the payment's own transactions. Refused (before it reaches the history)
 * unless the intent is signed or confirming, or while another cancel is being signed.
 */
export const cancelUnminedUpdate = defineUpdate<ReviewOutcome, [UnminedCancelRequest]>(
  'cancelUnmined',
);

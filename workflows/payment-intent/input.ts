import type { IntentTimings } from '../../domain/intent-timings';

export interface PaymentIntentInput extends IntentTimings {
  intentId: string;
  /**
   * Stay open in needs_review until an operator's decision arrives (the resolveReview update).
   * False only for a retry run started for an intent whose own workflow had already ended.
   */
  waitInReview?: boolean;
  /** The batch this intent is an item of: told once the item is signed (see payment-batch.ts). */
  batch?: {
    workflowId: string;
    index: number;
    /**
     * Set by batches that order a wallet's items by turns: the item signs in its wallet's turn,
     * told by the step of the item before it, and the batch is not told it is signed.
     */
    walletTurn?: { batchId: string };
  };
}

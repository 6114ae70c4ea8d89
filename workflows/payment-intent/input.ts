import type { IntentTimings } from '../../domain/intent-timings';

export interface PaymentIntentInput extends IntentTimings {
  intentId: string;
  /**
   * Its intent awaited approval as the workflow started: the run waits for a second key's
   * decision (or approvalTtlMs) before anything else.
   */
  awaitingApproval?: boolean;
  /**
   * Stay open in needs_review until an operator's decision arrives (the resolveReview update).
   * False only for a retry run started for an intent whose own workflow had already ended.
   */
  waitInReview?: boolean;
  /**
   * Epoch ms after which nothing is signed or sent: a run still before its send then ends
   * `expired` (domain/intent-deadlines.ts). The sign and send steps refuse on their own too.
   */
  validUntil?: number;
  /** Epoch ms before which it is not signed: the run waits on a timer, holding no permit. */
  notBefore?: number;
  /**
   * Its own fee ceiling (wei per gas, decimal): while the chain's base fee is above it, the run
   * waits unsigned on a timer, holding no permit (fee-ceiling.ts).
   */
  maxFeePerGas?: string;
  /** The batch this intent is an item of: told once the item is signed (../payment-batch/). */
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

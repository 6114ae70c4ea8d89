/**
 * Why an intent is where it is, as a code a program branches on; the intent's `reason` beside it
 * is the same for a person. Stored in its own column and never parsed back from the text. Pure:
 * workflows import it.
 */
export const ReasonCode = {
  /** Mined, reverted: no value moved. */
  reverted: 'reverted',
  /** A review cancel's zero-value transfer was mined at the intent's nonce. */
  cancelledOnChain: 'cancelled_on_chain',
  /** The token transfer succeeded but logged no transfer to the recipient. */
  tokenMovedNothing: 'token_moved_nothing',
  /** The token delivered less than the amount and is not registered as taking a fee. */
  tokenShortfall: 'token_shortfall',
  /** The token logged more to the recipient than the amount. */
  tokenOverdelivered: 'token_overdelivered',
  /** Sent, not confirmed within CONFIRM_TIMEOUT_MS: in review. */
  confirmationTimeout: 'confirmation_timeout',
  /** A step still failing when its time ran out (the send window, for a signed intent). */
  stepTimedOut: 'step_timed_out',
  /** A tenant's or an operator's cancel before anything was signed. */
  cancelledByCaller: 'cancelled_by_caller',
  /**
   * Confirmed, then reorged away before final, and its bytes can no longer be mined: in review,
   * its payment still captured.
   */
  reorgedAway: 'reorged_away',
  /** An operator resolved the review as failed. */
  failedByReview: 'failed_by_review',
  /** A second key (or an operator) rejected an intent awaiting approval. */
  rejectedByApprover: 'rejected_by_approver',
  /** No one approved it within APPROVAL_TTL_MS. */
  approvalExpired: 'approval_expired',
  /** Temporal's cancellation of the workflow. */
  workflowCancelled: 'workflow_cancelled',
  /** Not an end: held, waiting for a wallet whose lane an intent in review blocks. */
  walletBlocked: 'wallet_blocked',
  /** A failure that was not one of the relayer's own errors (a bug's trace is in the worker log). */
  internal: 'internal',
  /** A reason written before codes were stored, whose text names none of these. */
  legacyUnknown: 'legacy_unknown',
} as const;

/** One of the above, or a relayer error's name in snake case (`NoFundedWallet` → `no_funded_wallet`). */
export type ReasonCode = string;

/** An intent's reason: the code to branch on and the text for a person. */
export interface Reason {
  code: ReasonCode;
  text: string;
}

/** The code of a step that failed with one of the relayer's errors (domain/errors.ts's names). */
export const reasonCodeOfErrorType = (type: string): ReasonCode =>
  type.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();

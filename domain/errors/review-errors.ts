import { RelayerError } from './relayer-error';
import { ErrorName, notInReviewMessage } from '../error-catalogue';

// An operator's review decision refused: the intent is not in review, or the chain contradicts the
// decision.

export class NotInReviewError extends RelayerError<{ intentId: string; status: string }> {
  constructor(intentId: string, status: string, message = notInReviewMessage(intentId, status)) {
    super(ErrorName.notInReview, message, { intentId, status });
  }
}

/** What the chain says makes the operator's resolution unsafe; `problem` says which check. */
export type ReviewProblem =
  | 'transaction_not_found'
  | 'transaction_not_mined'
  | 'transaction_reverted'
  | 'token_moved_nothing'
  | 'transaction_mismatch'
  | 'transaction_taken'
  | 'transaction_mined'
  | 'transaction_may_still_land'
  | 'nothing_signed'
  | 'cancel_above_cap'
  | 'past_deadline';

export class ReviewRefusedError extends RelayerError<{ intentId: string; problem: ReviewProblem }> {
  constructor(intentId: string, problem: ReviewProblem, message: string) {
    super(ErrorName.reviewRefused, `intent ${intentId}: ${message}`, { intentId, problem });
  }
}

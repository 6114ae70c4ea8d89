import { defineUpdate } from '@temporalio/workflow';
import type { ReviewOutcome, ReviewRequest } from '../domain/review';

/**
 * An operator's decision for an intent waiting in needs_review. Refused (before it reaches the
 * history) when the workflow is not waiting in review or is already applying another decision.
 */
export const resolveReviewUpdate = defineUpdate<ReviewOutcome, [ReviewRequest]>('resolveReview');

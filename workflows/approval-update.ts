import { defineUpdate } from '@temporalio/workflow';
import type { ApprovalOutcome, ApprovalRequest } from '../domain/approval';

/**
 * A second key's decision on an intent (or a batch) awaiting approval. Refused (before it reaches
 * the history) when the workflow no longer waits for one or is already applying another.
 */
export const decideApprovalUpdate = defineUpdate<ApprovalOutcome<string>, [ApprovalRequest]>(
  'decideApproval',
);

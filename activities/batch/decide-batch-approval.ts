import type { ApprovalExpiry, ApprovalOutcome, ApprovalRequest } from '../../domain/approval';
import { decideBatchApproval as applyDecision } from '../../operations/batch-approval-decision';
import type { BatchStatus } from '../../domain/batch';
import type { ActivityDependencies } from '../dependencies';

export type DecideBatchApprovalParameters = (ApprovalRequest | ApprovalExpiry) & {
  batchId: string;
};

/**
 * Applies a second key's decision on a batch awaiting approval (the `decideApproval` update), or
 * the relayer's rejection when none came in time (operations/batch-approval-decision.ts).
 */
export const decideBatchApproval =
  ({ db, clock }: ActivityDependencies) =>
  ({
    batchId,
    ...decision
  }: DecideBatchApprovalParameters): Promise<ApprovalOutcome<BatchStatus>> =>
    applyDecision(db, batchId, decision, clock.now());

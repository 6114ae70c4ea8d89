import type { ApprovalExpiry, ApprovalOutcome, ApprovalRequest } from '../domain/approval';
import { decideApproval as applyDecision } from '../operations/approval-decision';
import type { ActivityDependencies } from './dependencies';

export type DecideApprovalParameters = (ApprovalRequest | ApprovalExpiry) & { intentId: string };

/**
 * Applies a second key's decision on an intent awaiting approval (the `decideApproval` update),
 * or the relayer's rejection when none came in time: the intent's status and its audit entry in
 * one transaction (operations/approval-decision.ts).
 */
export const decideApproval =
  ({ db, clock }: ActivityDependencies) =>
  ({ intentId, ...decision }: DecideApprovalParameters): Promise<ApprovalOutcome> =>
    applyDecision(db, intentId, decision, clock.now());

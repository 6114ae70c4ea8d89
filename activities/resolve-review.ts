import { Context } from '@temporalio/activity';
import type { Intent } from '../domain/intent';
import type { ReviewOutcome, ReviewRequest } from '../domain/review';
import { applyReviewDecision } from '../operations/review-decision';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';

export interface ResolveReviewParameters extends ReviewRequest {
  intentId: string;
}

/**
 * Applies an operator's decision for an intent in review, from inside its workflow (the
 * `resolveReview` update): checked on-chain, written with its audit entry in one transaction.
 * The entry carries this step's key (its run and activity id), so a try after a worker died past
 * the commit finds the decision applied and answers with the intent as it left it.
 */
export const resolveReview =
  ({ db, chains, clock }: ActivityDependencies) =>
  async ({
    intentId,
    decision,
    actor,
    intentVersion,
  }: ResolveReviewParameters): Promise<ReviewOutcome> => {
    const by = { actor, decisionKey: thisStepKey(), intentVersion };
    const intent = await whileHeartbeating(() =>
      applyReviewDecision(
        { database: db, chains, clock: () => clock.now() },
        by,
        intentId,
        decision,
      ),
    );
    return outcomeOf(intent);
  };

/**
 * The running step's key, its run and activity id: the same for every try of the step, so a
 * decision recorded with it is found applied by a try after a worker died past the commit.
 */
export function thisStepKey(): string | undefined {
  const { workflowExecution, activityId } = Context.current().info;
  return workflowExecution && `${workflowExecution.runId}/${activityId}`;
}

/** The intent as a decision left it, as the workflow takes it on. */
export const outcomeOf = (intent: Intent): ReviewOutcome => ({
  status: intent.status,
  txHash: intent.txHash,
  blockNumber: intent.blockNumber?.toString() ?? null,
  reason: intent.reason,
  reasonCode: intent.reasonCode,
});

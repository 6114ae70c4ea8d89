import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { intentWorkflow } from '../client/intent-workflows';
import { startIntentOf } from './workflow-starts';
import type { Intent } from '../domain/intent';
import type { ReviewDecision } from '../domain/review';
import { paymentIntentWorkflowId } from '../domain/workflow-ids';
import {
  applyReviewDecision,
  intentInReview,
  type ReviewCheckDependencies,
} from '../operations/review-decision';
import { getIntent } from '../store/intents';
import { actorOf, type Caller } from './caller';
import { relayerErrorOf } from './update-refusal';
import type { IntentTimings } from '../domain/intent-timings';

/** Review is an operator's job: the API asks for an operator key (403 otherwise). */
type Operator = Extract<Caller, { role: 'operator' }>;

export interface ReviewDependencies extends ReviewCheckDependencies {
  client: Client;
  taskQueue: string;
  /** The send window and confirmation timeout new intents start with (the process's settings). */
  timings?: IntentTimings;
}

/**
 * An operator's decision on an intent in needs_review. The intent's workflow waits in review for
 * it (an Update, `resolveReview`): the decision goes there, is checked and applied by an activity,
 * and a retry goes on in the same workflow. An intent whose workflow has already ended (one that
 * went to review before workflows waited there) is resolved here directly, the same way.
 */
export async function reviewIntent(
  deps: ReviewDependencies,
  operator: Operator,
  intentId: string,
  decision: ReviewDecision,
): Promise<Intent> {
  const { version } = await intentInReview(deps, intentId);
  const by = { actor: actorOf(operator), intentVersion: version };
  try {
    // Sent as soon as the books say needs_review: the run may take its next task to wait in
    // review, and the decision waits for that (refused if the run ends instead).
    await intentWorkflow(deps.client, intentId).resolveReview({ decision, ...by });
    return await getIntent(deps.database.kysely, intentId);
  } catch (error) {
    // Also what the server answers for a workflow that has already ended.
    if (!(error instanceof WorkflowNotFoundError)) throw relayerErrorOf(error);
  }
  const resolved = await applyReviewDecision(deps, by, intentId, decision);
  if (decision.action === 'retry' || decision.action === 'cancel') {
    await startIntentOf(deps, resolved, {
      workflowId: `${paymentIntentWorkflowId(intentId)}-retry-v${resolved.version}`,
      // Nobody could find this run to send it a decision: it ends in review as runs used to.
      waitInReview: false,
    });
  }
  return resolved;
}

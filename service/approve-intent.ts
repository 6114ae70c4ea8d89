import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { intentWorkflow } from '../client/intent-workflows';
import { startIntentOf } from './workflow-starts';
import type { ApprovalDecision } from '../domain/approval';
import {
  ApprovalRefusedError,
  IntentNotFoundError,
  NotAwaitingApprovalError,
} from '../domain/errors';
import { IntentStatus, type Intent } from '../domain/intent';
import type { IntentTimings } from '../domain/intent-timings';
import { decideApproval } from '../operations/approval-decision';
import type { Database } from '../store/database';
import { getIntent } from '../store/intents';
import { actorOf, canSee, type Caller } from './caller';
import { relayerErrorOf } from './update-refusal';

export interface ApprovalDependencies {
  database: Database;
  client: Client;
  taskQueue: string;
  timings?: IntentTimings;
  clock?: () => Date;
}

/**
 * A second key's decision on an intent awaiting approval: sent to its workflow, which waits for
 * it (the `decideApproval` update) and applies it with its audit entry; approved, the same
 * workflow goes on to pay it. Four eyes: the key that submitted it is refused (here at once, and
 * again where the decision is applied). An intent whose workflow is not running (never started:
 * the process died between the insert and the start) is decided here and, approved, started.
 */
export async function decideIntentApproval(
  deps: ApprovalDependencies,
  caller: Caller,
  intentId: string,
  decision: ApprovalDecision,
  note?: string,
): Promise<Intent> {
  const intent = await getIntent(deps.database.kysely, intentId);
  if (!canSee(caller, intent)) throw new IntentNotFoundError(intentId);
  if (intent.status !== IntentStatus.awaitingApproval) {
    throw new NotAwaitingApprovalError(intentId, intent.status);
  }
  if (decision === 'approve' && intent.submittedBy === caller.keyId) {
    throw new ApprovalRefusedError(intentId, caller.keyId);
  }
  const request = { decision, actor: actorOf(caller), keyId: caller.keyId, note };
  try {
    await intentWorkflow(deps.client, intentId).decideApproval(request);
    return await getIntent(deps.database.kysely, intentId);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw relayerErrorOf(error);
  }
  await decideApproval(deps.database, intentId, request, deps.clock?.() ?? new Date());
  const decided = await getIntent(deps.database.kysely, intentId);
  if (decided.status === IntentStatus.authorized) {
    await startIntentOf(deps, decided);
  }
  return decided;
}

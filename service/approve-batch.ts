import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { batchWorkflow } from '../client/batch-workflows';
import { startBatchOf } from './workflow-starts';
import type { ApprovalDecision } from '../domain/approval';
import { ApprovalRefusedError, NotAwaitingApprovalError } from '../domain/errors';
import type { IntentTimings } from '../domain/intent-timings';
import { decideBatchApproval } from '../operations/batch-approval-decision';
import type { Database } from '../store/database';
import { findBatchFor, type BatchWithCounts } from './batch-queries';
import { actorOf, type Caller } from './caller';
import { relayerErrorOf } from './update-refusal';

export interface BatchApprovalDependencies {
  database: Database;
  client: Client;
  taskQueue: string;
  timings?: IntentTimings;
  clock?: () => Date;
}

/**
 * A second key's decision on a batch awaiting approval, once for all its items: sent to its
 * workflow, which waits for it (the `decideApproval` update) before starting any item; approved,
 * its items run, each admitted as approved by this key. Four eyes: the key that submitted the
 * batch is refused (here at once, and again where the decision is applied). A batch whose
 * workflow is not running (the process died between the insert and the start) is decided here
 * and, approved, started.
 */
export async function decideBatchApprovalFor(
  deps: BatchApprovalDependencies,
  caller: Caller,
  batchId: string,
  decision: ApprovalDecision,
  note?: string,
): Promise<BatchWithCounts> {
  const batch = await findBatchFor(deps.database, caller, batchId);
  if (batch.status !== 'awaiting_approval') {
    throw new NotAwaitingApprovalError(batchId, batch.status, 'batch');
  }
  if (decision === 'approve' && batch.submittedBy === caller.keyId) {
    throw new ApprovalRefusedError(batchId, caller.keyId, 'batch');
  }
  const request = { decision, actor: actorOf(caller), keyId: caller.keyId, note };
  try {
    await batchWorkflow(deps.client, batchId).decideApproval(request);
    return await findBatchFor(deps.database, caller, batchId);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw relayerErrorOf(error);
  }
  await decideBatchApproval(deps.database, batchId, request, deps.clock?.() ?? new Date());
  const decided = await findBatchFor(deps.database, caller, batchId);
  if (decided.status === 'running') {
    await startBatchOf(deps, decided);
  }
  return decided;
}

import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { batchWorkflowId, type BatchMode } from '../domain/batch';
import type { IntentTimings } from '../domain/intent-timings';
import { temporalPriorityOf, type IntentPriority } from '../domain/intent-priority';
import type { paymentBatch } from '../workflows';
import {
  batchProgressQuery,
  cancelBatchSignal,
  type BatchProgress,
} from '../workflows/payment-batch/signals';
import { batchIdKey, tenantIdKey } from '../workflows/search-attributes';
import { decideApprovalUpdate } from '../workflows/payment-intent/messages';
import type { ApprovalOutcome, ApprovalRequest } from '../domain/approval';

/** A recorded batch, as its workflow is started with. */
export interface BatchToStart {
  id: string;
  tenantId: string;
  itemCount: number;
  concurrency: number;
  mode: BatchMode;
  /** `awaiting_approval`: its workflow waits for one decision before any item starts. */
  status?: string;
  /** Its items' priority, which their workflows inherit from the batch's (null: normal). */
  priority?: IntentPriority | null;
}

/** Starts (or joins) a batch's workflow; a finished batch's is never run again. */
export async function startBatchWorkflow(
  client: Client,
  taskQueue: string,
  batch: BatchToStart,
  /** What its items start with (see startIntentWorkflow). */
  timings?: IntentTimings,
  /** Its tenant's weight, inherited by its items (see startIntentWorkflow). */
  fairnessWeight?: number,
): Promise<void> {
  try {
    await client.workflow.start<typeof paymentBatch>('paymentBatch', {
      taskQueue,
      workflowId: batchWorkflowId(batch.id),
      args: [
        {
          batchId: batch.id,
          itemCount: batch.itemCount,
          concurrency: batch.concurrency,
          mode: batch.mode,
          ...(timings && { timings }),
          ...(batch.status === 'awaiting_approval' && { awaitingApproval: true }),
        },
      ],
      priority: temporalPriorityOf(batch, fairnessWeight),
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: tenantIdKey, value: batch.tenantId },
        { key: batchIdKey, value: batch.id },
      ],
      memo: { items: batch.itemCount, mode: batch.mode },
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** What a script may ask of a batch's workflow, by batch id. */
export function batchWorkflow(client: Client, batchId: string) {
  const handle = client.workflow.getHandle<typeof paymentBatch>(batchWorkflowId(batchId));
  return {
    handle,
    /** Nothing more starts; running items with nothing signed are cancelled (payment-batch/). */
    cancel: (reason: string) => handle.signal(cancelBatchSignal, reason),
    progress: (): Promise<BatchProgress> => handle.query(batchProgressQuery),
    /** A second key's decision on a batch awaiting approval (refusals thrown). */
    decideApproval: (request: ApprovalRequest): Promise<ApprovalOutcome<string>> =>
      handle.executeUpdate(decideApprovalUpdate, { args: [request] }),
  };
}

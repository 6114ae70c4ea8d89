import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Intent } from '../domain/intent';
import { paymentIntentWorkflowId } from '../domain/workflow-ids';
import type { paymentIntent } from '../workflows';
import { intentMemo, intentSearchAttributes, labelsOf } from '../workflows/search-attributes';

/**
 * Starts the workflow that takes an intent to its end. Starting it again is harmless: a running
 * one is joined and a finished one is never re-run, so at most one workflow ever works on an
 * intent under `workflowId`. A retry of an intent whose workflow has ended passes a new id and
 * `waitInReview: false` (see review-intent.ts).
 */
export async function startIntentWorkflow(
  client: Client,
  taskQueue: string,
  intent: Intent,
  options: { workflowId?: string; waitInReview?: boolean } = {},
): Promise<string> {
  const workflowId = options.workflowId ?? paymentIntentWorkflowId(intent.id);
  const labels = labelsOf(intent);
  try {
    await client.workflow.start<typeof paymentIntent>('paymentIntent', {
      taskQueue,
      workflowId,
      args: [
        { intentId: intent.id, ...(options.waitInReview === false && { waitInReview: false }) },
      ],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: intentSearchAttributes(labels),
      memo: intentMemo(labels),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

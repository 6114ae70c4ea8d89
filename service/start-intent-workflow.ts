import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Intent } from '../domain/intent';
import { paymentIntentWorkflowId } from '../domain/workflow-ids';
import type { paymentIntent } from '../workflows';
import { intentStatusKey, tenantIdKey } from '../workflows/search-attributes';

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
  try {
    await client.workflow.start<typeof paymentIntent>('paymentIntent', {
      taskQueue,
      workflowId,
      args: [
        { intentId: intent.id, ...(options.waitInReview === false && { waitInReview: false }) },
      ],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: intentStatusKey, value: intent.status },
        { key: tenantIdKey, value: intent.tenantId },
      ],
      memo: {
        amountWei: intent.amount.toString(),
        from: intent.from,
        to: intent.to,
        chainId: intent.chainId,
      },
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return workflowId;
}

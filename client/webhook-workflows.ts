import type { Client } from '@temporalio/client';
import { webhookTaskQueue } from '../domain/task-queues';
import type { webhookDelivery, WebhookDeliveryInput } from '../workflows';
import { webhookEventsSignal } from '../workflows/webhook-delivery';

/** One delivery workflow per endpoint. */
export const webhookWorkflowId = (endpointId: string): string => `webhooks-${endpointId}`;

/**
 * Wakes the endpoint's delivery workflow, starting it if it is not running (it ends when idle):
 * told again and again harmlessly, started at most once at a time. A new run goes on the main
 * queue, its pump on the webhooks queue; a run already going (maybe on the webhooks queue, where
 * the previous release started them) just gets the word.
 */
export async function tellWebhookEndpoint(
  client: Client,
  taskQueue: string,
  input: Omit<WebhookDeliveryInput, 'pumpTaskQueue'>,
): Promise<void> {
  await client.workflow.signalWithStart<typeof webhookDelivery, []>('webhookDelivery', {
    workflowId: webhookWorkflowId(input.endpointId),
    taskQueue,
    args: [{ ...input, pumpTaskQueue: webhookTaskQueue(taskQueue) }],
    signal: webhookEventsSignal,
    signalArgs: [],
  });
}

/**
 * Delivery runs still going on the webhooks queue itself, where the release before this one
 * started them (their workflow tasks need a worker there until the last ends).
 */
export async function countDeliveryRunsOnWebhookQueue(
  client: Client,
  taskQueue: string,
): Promise<number> {
  const query = `TaskQueue = "${webhookTaskQueue(taskQueue)}" AND ExecutionStatus = "Running"`;
  return (await client.workflow.count(query)).count;
}

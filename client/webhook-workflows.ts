import type { Client } from '@temporalio/client';
import { webhookTaskQueue } from '../domain/task-queues';
import type { webhookDelivery, WebhookDeliveryInput } from '../workflows';
import { webhookEventsSignal } from '../workflows/webhook-delivery';

/** One delivery workflow per endpoint. */
export const webhookWorkflowId = (endpointId: string): string => `webhooks-${endpointId}`;

/**
 * Wakes the endpoint's delivery workflow, starting it if it is not running (it ends when idle):
 * told again and again harmlessly, started at most once at a time.
 */
export async function tellWebhookEndpoint(
  client: Client,
  taskQueue: string,
  input: WebhookDeliveryInput,
): Promise<void> {
  await client.workflow.signalWithStart<typeof webhookDelivery, []>('webhookDelivery', {
    workflowId: webhookWorkflowId(input.endpointId),
    taskQueue: webhookTaskQueue(taskQueue),
    args: [input],
    signal: webhookEventsSignal,
    signalArgs: [],
  });
}

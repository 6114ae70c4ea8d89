import type { Client } from '@temporalio/client';
import { getIntent, insertIntent } from '../../store/intents';
import type { NewIntent } from '../../domain/intent-request';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { newIntentId } from '../../operations/new-id';
import type { LocalWorld } from './stack/local-world';
import { waitFor } from './stack/wait-for';
import { intentProgressQuery, type paymentIntentV2 } from '../../workflows';
import { labelsOf } from '../../domain/intent-labels';
import { intentSearchAttributes } from '../../workflows/search-attributes';

/**
 * An intent whose transaction the node holds but does not mine (automine off, left off), its
 * workflow started as the API would but with a short confirmation timeout (the default is 30
 * minutes): resolves once the workflow waits in needs_review.
 */
export function intentWaitingInReview(
  world: LocalWorld,
  temporal: { client: Client; taskQueue: string },
  request: NewIntent,
  confirmTimeoutMs: number,
) {
  return intentHeldUnmined(world, temporal, request, 'needs_review', confirmTimeoutMs);
}

/**
 * An intent whose transaction the node holds but does not mine (automine off, left off), its
 * workflow started as the API would: resolves once its workflow says `until` (`confirming`: sent,
 * its looks going on; `needs_review`: past `confirmTimeoutMs`).
 */
export async function intentHeldUnmined(
  world: LocalWorld,
  temporal: { client: Client; taskQueue: string },
  request: NewIntent,
  until: 'confirming' | 'needs_review',
  confirmTimeoutMs?: number,
) {
  await world.testClient.setAutomine(false);
  const { intent } = await insertIntent(world.database.kysely, newIntentId(), request, new Date());
  const handle = await temporal.client.workflow.start<typeof paymentIntentV2>('paymentIntentV2', {
    taskQueue: temporal.taskQueue,
    workflowId: paymentIntentWorkflowId(intent.id),
    args: [{ intentId: intent.id, ...(confirmTimeoutMs !== undefined && { confirmTimeoutMs }) }],
    typedSearchAttributes: intentSearchAttributes(labelsOf(intent)),
  });
  await waitFor(
    async () => (await handle.query(intentProgressQuery)).status === until,
    `the intent to be ${until}`,
    30_000,
  );
  return { intent: await getIntent(world.database.kysely, intent.id), handle };
}

import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import type { paymentIntentV2 } from '../../workflows';
import type { RelayerActivities } from '../../activities';
import { createRelayerWorker, type RelayerWorkerOptions } from '../../workers/relayer-worker';

/**
 * The real worker wiring around faked activities, running: process `p` in the default namespace,
 * a pool of 2, no drain unless asked for.
 */
export async function runFakeWorker(
  connection: NativeConnection,
  taskQueue: string,
  activities: RelayerActivities,
  options: Partial<RelayerWorkerOptions> = {},
) {
  const worker = await createRelayerWorker({
    connection,
    namespace: 'default',
    taskQueue,
    processId: 'p',
    activities,
    poolWidth: 2,
    throttleWaiters: 10,
    drainTimeoutMs: 0,
    ...options,
  });
  return { worker, running: worker.run() };
}

/** An intent's workflow for a fake worker: `intentId` only, under a workflow id of its own. */
export const startFakedIntent = (client: Client, taskQueue: string, intentId: string) =>
  client.workflow.start<typeof paymentIntentV2>('paymentIntentV2', {
    taskQueue,
    workflowId: `intent-${randomUUID()}`,
    args: [{ intentId }],
  });

import type { Client, WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { startDevServer } from '../../harness/stack/temporal-servers';
import { waitFor } from '../../harness/stack/wait-for';
import { type IntentPriority, temporalPriorityOf } from '../../../domain/intent-priority';
import { permitReleaseTaskQueue } from '../../../domain/task-queues';
import type { paymentIntentV2 } from '../../../workflows';
import { fakeActivities } from '../../harness/fake-activities';

// Temporal's own order on a task queue's backlog: twelve bulk payments of one tenant wait, then
// one urgent payment of another is started; a worker that takes one task at a time then starts
// the urgent one first on a server with the fair matcher (matching.useNewMatcher and
// matching.enableFairness), and behind the backlog on one without.

jest.setTimeout(120_000);

/** The order in which the payments' first workflow tasks were started, by intent id. */
async function firstTaskOrder(settings: 'tuned' | 'fifo'): Promise<string[]> {
  const server = await startDevServer({ settings });
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const client: Client = server.client;
    const taskQueue = `priority-${randomUUID()}`;
    const start = (intentId: string, priority: IntentPriority, tenantId: string) =>
      client.workflow.start<typeof paymentIntentV2>('paymentIntentV2', {
        taskQueue,
        workflowId: `order-${intentId}`,
        args: [{ intentId }],
        priority: temporalPriorityOf({ priority, tenantId }),
      });
    const handles: WorkflowHandle[] = [];
    for (let i = 0; i < 12; i++) handles.push(await start(`pi_bulk${i}`, 'bulk', 'bulky'));
    handles.push(await start('pi_urgent', 'urgent', 'rushed'));
    const { activities } = fakeActivities(permitReleaseTaskQueue(taskQueue, 'p'));
    // One task at a time, none kept in a cache: tasks are run in the order the server hands them.
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      activities,
      maxCachedWorkflows: 0,
      maxConcurrentWorkflowTaskExecutions: 1,
      maxConcurrentWorkflowTaskPolls: 1,
    });
    const firstTaskStarted = async (handle: WorkflowHandle) =>
      ((await handle.fetchHistory()).events ?? []).find(
        (event) => event.workflowTaskStartedEventAttributes,
      );
    await worker.runUntil(
      waitFor(
        async () => (await Promise.all(handles.map(firstTaskStarted))).every(Boolean),
        'every first workflow task started',
      ),
    );
    const startedAt = async (handle: WorkflowHandle) => {
      const { seconds, nanos } = (await firstTaskStarted(handle))!.eventTime!;
      return Number(seconds) * 1e9 + (nanos ?? 0);
    };
    const times = await Promise.all(
      handles.map(async (handle) => [handle.workflowId, await startedAt(handle)] as const),
    );
    return times
      .sort((a, b) => a[1] - b[1])
      .map(([workflowId]) => workflowId.replace('order-', ''));
  } finally {
    await connection.close();
    await server.teardown();
  }
}

describe("Temporal's task queue order (dev server)", () => {
  it('starts an urgent payment ahead of a bulk backlog with the fair matcher, behind it without', async () => {
    const fair = await firstTaskOrder('tuned');
    expect(fair[0]).toBe('pi_urgent');
    // The classic matcher reads its backlog ahead in batches, so the urgent one may pass a bulk
    // payment or two there; it still starts behind most of them.
    const unordered = await firstTaskOrder('fifo');
    expect(unordered.indexOf('pi_urgent')).toBeGreaterThan(unordered.length / 2);
  });
});

import { randomUUID } from 'node:crypto';
import type { IntentStatus } from '../../../domain/intent';
import { permitReleaseTaskQueue } from '../../../domain/task-queues';
import { waitFor } from '../../harness/stack/wait-for';
import { fakeActivities } from '../../harness/fake-activities';
import { useDevServerClient } from '../../harness/dev-server-client';
import { runFakeWorker, startFakedIntent } from '../../harness/fake-worker';

/**
 * On the dev server: a workflow task that keeps failing holds the time-skipping server's clock,
 * and terminating its workflow leaves it held for every later test (temporalio/sdk-java#1138).
 */
const devServer = useDevServerClient();

describe('paymentIntent workflow and a bug (dev server, activities faked)', () => {
  it('lets a bug fail the workflow task, retried, never the payment', async () => {
    const taskQueue = `wf-${randomUUID()}`;
    // The workflow's own code breaks on a step result it cannot read (a bug shipped in a step).
    const { activities, calls } = fakeActivities(permitReleaseTaskQueue(taskQueue, 'p'), {
      markSettling: async () => undefined as unknown as { status: IntentStatus },
    });
    const { worker, running } = await runFakeWorker(devServer.connection(), taskQueue, activities);
    try {
      const handle = await startFakedIntent(devServer.client(), taskQueue, 'pi_bug');
      await waitFor(
        async () =>
          ((await handle.fetchHistory()).events ?? []).some(
            (event) => event.workflowTaskFailedEventAttributes,
          ),
        'a failed workflow task',
        20_000,
      );
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect(calls).toContain('markSettling');
      expect(calls).not.toContain('closeIntent');
      expect(calls).not.toContain('broadcast');
      await handle.terminate('test over');
    } finally {
      await worker.shutdown();
      await running;
    }
  });
});

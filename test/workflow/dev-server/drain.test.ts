import { randomUUID } from 'node:crypto';
import { IntentStatus } from '../../../domain/intent';
import { permitReleaseTaskQueue } from '../../../domain/task-queues';
import { fakeActivities } from '../../harness/fake-activities';
import { useDevServerClient } from '../../harness/dev-server-client';
import { runFakeWorker, startFakedIntent } from '../../harness/fake-worker';

/**
 * On the dev server: the next worker must get the workflow's task once the drained worker is
 * gone, which needs the server to drop the drained worker's sticky queue (the time-skipping
 * server never does).
 */
const devServer = useDevServerClient();

describe('a drain with a local step in flight (dev server, activities faked)', () => {
  it('lets the step finish within the grace time; the next worker goes on from there', async () => {
    const taskQueue = `wf-${randomUUID()}`;
    let holdStarted!: () => void;
    const holding = new Promise<void>((resolve) => (holdStarted = resolve));
    let holdsFinished = 0;
    const { activities, calls } = fakeActivities(permitReleaseTaskQueue(taskQueue, 'p'), {
      hold: async () => {
        holdStarted();
        await new Promise((resolve) => setTimeout(resolve, 1500));
        holdsFinished++;
        return { status: IntentStatus.held };
      },
    });
    const startWorker = () =>
      runFakeWorker(devServer.connection(), taskQueue, activities, { drainTimeoutMs: 10_000 });

    const first = await startWorker();
    const handle = await startFakedIntent(devServer.client(), taskQueue, 'pi_drained');
    try {
      await holding;
      await first.worker.shutdown();
    } finally {
      await first.running;
    }
    // The local step ran to its end, not cancelled by the drain.
    expect(holdsFinished).toBe(1);

    const second = await startWorker();
    try {
      expect((await handle.result()).status).toBe(IntentStatus.confirmed);
    } finally {
      await second.worker.shutdown();
      await second.running;
    }
    // Its result was kept: the next worker did not hold the funds again.
    expect(calls.filter((call) => call === 'hold')).toHaveLength(1);
  });
});

import type { State } from '@temporalio/worker';
import { serveEarlierWebhookRuns } from '../../workers/earlier-webhook-runs';

/** A worker that runs until shut down, or until `fail` ends its run with an error. */
class FakeWorker {
  private state: State = 'INITIALIZED';
  private end: (error?: Error) => void = () => undefined;
  getState = () => this.state;
  run = () => {
    this.state = 'RUNNING';
    return new Promise<void>((resolve, reject) => {
      this.end = (error) => {
        this.state = error ? 'FAILED' : 'STOPPED';
        if (error) reject(error);
        else resolve();
      };
    });
  };
  shutdown = () => this.end();
  fail = (error: Error) => this.end(error);
}

/** Counts as the test sets them; the workers created, in order. */
function world(counts: (number | Error)[]) {
  const workers: FakeWorker[] = [];
  const failures: unknown[] = [];
  let looks = 0;
  return {
    workers,
    failures,
    looks: () => looks,
    options: {
      countRunning: async () => {
        const next = counts[Math.min(looks++, counts.length - 1)]!;
        if (next instanceof Error) throw next;
        return next;
      },
      createWorker: async () => {
        const worker = new FakeWorker();
        workers.push(worker);
        return worker;
      },
      everyMs: 5,
      onWorkerFailed: (error: unknown) => failures.push(error),
    },
  };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
};

describe('serveEarlierWebhookRuns', () => {
  it('keeps no worker while no run is on the webhooks queue', async () => {
    const fake = world([0]);
    const earlier = await serveEarlierWebhookRuns(fake.options);
    await until(() => fake.looks() >= 3);
    await earlier.stop();
    expect(fake.workers).toEqual([]);
  });

  it('serves from the first look while runs are there, and stops once none is left', async () => {
    const fake = world([2, 1, 0]);
    const earlier = await serveEarlierWebhookRuns(fake.options);
    expect(fake.workers.map((worker) => worker.getState())).toEqual(['RUNNING']);
    await until(() => fake.workers[0]!.getState() === 'STOPPED');
    await until(() => fake.looks() >= 5);
    await earlier.stop();
    expect(fake.workers).toHaveLength(1);
  });

  it('serves when it cannot look: a run no worker takes would hold its deliveries', async () => {
    const fake = world([new Error('visibility away'), 0]);
    const earlier = await serveEarlierWebhookRuns(fake.options);
    expect(fake.workers.map((worker) => worker.getState())).toEqual(['RUNNING']);
    await until(() => fake.workers[0]!.getState() === 'STOPPED');
    await earlier.stop();
  });

  it('a worker that fails is told and replaced at the next look while runs remain', async () => {
    const fake = world([1]);
    const earlier = await serveEarlierWebhookRuns(fake.options);
    fake.workers[0]!.fail(new Error('poller gone'));
    await until(() => fake.workers.length === 2);
    await earlier.stop();
    expect(fake.failures).toEqual([new Error('poller gone')]);
    expect(fake.workers.map((worker) => worker.getState())).toEqual(['FAILED', 'STOPPED']);
  });
});

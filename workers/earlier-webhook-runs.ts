import type { Worker } from '@temporalio/worker';

/** How often a process looks whether delivery runs on the webhooks queue still need it. */
export const earlierRunsCheckMs = 60_000;

export interface EarlierWebhookRuns {
  /** Stops looking and the worker it keeps, once that worker's tasks in hand are done. */
  stop(): Promise<void>;
}

/**
 * Delivery workflows the previous release started on the webhooks queue (new ones run on the
 * main queue) still need workflow threads polling that queue until the last ends: a run ends
 * within a minute of its endpoint going idle. This process keeps a workflow worker there only
 * while visibility shows such a run, looked at now and every `everyMs`: otherwise it runs one set
 * of workflow threads. A look that fails (visibility away) keeps or starts the worker.
 */
export async function serveEarlierWebhookRuns(options: {
  countRunning(): Promise<number>;
  /** A worker on the webhooks queue with the workflow code and no activities. */
  createWorker(): Promise<Pick<Worker, 'run' | 'shutdown' | 'getState'>>;
  everyMs?: number;
  /** Told when the worker fails and is dropped (the next look starts another if still needed). */
  onWorkerFailed(error: unknown): void;
}): Promise<EarlierWebhookRuns> {
  let serving: { worker: Pick<Worker, 'shutdown' | 'getState'>; done: Promise<void> } | undefined;
  let stopped = false;
  const look = async () => {
    const running = await options.countRunning().catch(() => undefined);
    if (stopped) return;
    // Not knowing, it serves: a run no worker takes would hold its endpoint's deliveries.
    if (running !== 0 && !serving) {
      const worker = await options.createWorker();
      const done = worker.run().catch((error: unknown) => {
        if (serving?.worker === worker) serving = undefined;
        options.onWorkerFailed(error);
      });
      serving = { worker, done };
    } else if (running === 0 && serving) {
      await stopServing();
    }
  };
  const stopServing = async () => {
    if (!serving) return;
    const { worker, done } = serving;
    serving = undefined;
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await done;
  };
  await look();
  let looking = Promise.resolve();
  const timer = setInterval(() => {
    // One look at a time; a worker that cannot be created now is the next look's to try.
    looking = looking.then(() => look().catch(options.onWorkerFailed));
  }, options.everyMs ?? earlierRunsCheckMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await looking;
      await stopServing();
    },
  };
}

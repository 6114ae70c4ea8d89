import { randomUUID } from 'node:crypto';
import { maxInWindow } from '../../dev/stack/rpc-proxy';
import { stopSummary } from '../../dev/stack/worker-process';
import { submitMany, waitUntilSettled } from '../support/intents';
import { useTestWorld } from '../support/test-world';

const suite = useTestWorld({ proxy: true, redis: true });

describe('one quota shared by three worker processes through Redis', () => {
  it('5 sends/s, burst 1: no 1-second window holds more than 5 sends, across all processes', async () => {
    const perSecond = 5;
    const burst = 1;
    const taskQueue = `shared-quota-${randomUUID()}`;
    const world = suite.world();
    const workers = await suite.spawnWorkers(3, {
      TASK_QUEUE: taskQueue,
      POOL_WIDTH: '8',
      THROTTLE_MAX_IN_FLIGHT: '100',
      THROTTLE_PER_SECOND: String(perSecond),
      THROTTLE_BURST: String(burst),
    });
    await submitMany(world, taskQueue, 30);
    await waitUntilSettled(world, 30, 60_000);
    for (const worker of workers) worker.signal('SIGTERM');
    const summaries = await Promise.all(
      workers.map(async (w) => (await w.exited, stopSummary(w.output()))),
    );

    const sends = world.proxy!.callsOf('eth_sendRawTransaction');
    expect(sends).toHaveLength(30);
    // The pacer spaces sends at the node by 1/rate, `burst` back to back at most: no second can
    // hold more than perSecond + burst − 1 of them — here 5.
    expect(maxInWindow(sends, 1000)).toBeLessThanOrEqual(perSecond + burst - 1);
    const spanSeconds = (sends.at(-1)!.startedAt - sends[0]!.startedAt) / 1000;
    expect((sends.length - burst) / spanSeconds).toBeLessThanOrEqual(perSecond * 1.05);
    // The work really was shared: every process sent some of it.
    expect(summaries.map((s) => s?.sent ?? 0).reduce((a, b) => a + b, 0)).toBe(30);
    expect(summaries.filter((s) => (s?.sent ?? 0) > 0).length).toBeGreaterThanOrEqual(2);
  });
});

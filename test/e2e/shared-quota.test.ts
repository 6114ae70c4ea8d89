import { randomUUID } from 'node:crypto';
import { maxInWindow } from '../harness/stack/rpc-proxy';
import { longestStallMs, stopSummary } from '../harness/stack/worker-process';
import { minMarginMs } from '../../throttle/window-state';
import { submitMany, waitUntilSettled } from '../harness/intents';
import { useWorld } from '../harness/test-world';

const world = useWorld({ proxy: true, redis: true });

describe('one quota shared by three worker processes through Redis', () => {
  it('5 sends/s, burst 2: no 1-second window holds more than 6 sends, across all processes', async () => {
    const perSecond = 5;
    const burst = 2;
    const taskQueue = `shared-quota-${randomUUID()}`;
    const workers = await world.spawnWorkers(3, {
      TASK_QUEUE: taskQueue,
      POOL_WIDTH: '8',
      THROTTLE_MAX_IN_FLIGHT: '100',
      THROTTLE_PER_SECOND: String(perSecond),
      THROTTLE_BURST: String(burst),
    });
    await submitMany(world, taskQueue, 30);
    // The proxy's stalls while submitting (before any send: the window starts full) bunch none.
    if (world.proxy!.callsOf('eth_sendRawTransaction').length === 0) world.proxy!.resetStalls();
    await waitUntilSettled(world, 30, 60_000);
    for (const worker of workers) worker.signal('SIGTERM');
    const summaries = await Promise.all(
      workers.map(async (w) => (await w.exited, stopSummary(w.output()))),
    );

    const sends = world.proxy!.callsOf('eth_sendRawTransaction');
    expect(sends).toHaveLength(30);
    // The pacer spaces sends by 1/rate, keeping one token of the burst for the ms between its
    // decision and the node, which differ from send to send: so even where those ms bunch two
    // sends, no second holds more than perSecond + burst − 1 at the node — here 6. (With a burst
    // of 1 there is no token to keep, and 20 ms of jitter put 6 sends in a second.)
    // Those ms are the delivery margin (measured per process, minMarginMs at least). A process
    // held up longer — a worker between a decision and its send, or the proxy, which stamps
    // together the calls that came during its own stall — bunches sends by up to the sum of the
    // two stalls (on two cores shared with another suite's processes, over 225 ms: 7 sends in a
    // second). So the bound is judged on windows shortened by what the stalls exceed it by.
    const stallMs =
      Math.max(...workers.map((w) => longestStallMs(w.output()))) + world.proxy!.longestStallMs();
    const beyondMarginMs = Math.max(0, stallMs - minMarginMs);
    const windowMs = 1000 - beyondMarginMs;
    console.log(`shared quota: stalls up to ${stallMs} ms; bound judged on ${windowMs} ms windows`);
    expect(maxInWindow(sends, windowMs)).toBeLessThanOrEqual(perSecond + burst - 1);
    const spanSeconds = (sends.at(-1)!.startedAt - sends[0]!.startedAt + beyondMarginMs) / 1000;
    expect((sends.length - burst) / spanSeconds).toBeLessThanOrEqual(perSecond * 1.05);
    // The work really was shared: every process sent some of it.
    expect(summaries.map((s) => s?.sent ?? 0).reduce((a, b) => a + b, 0)).toBe(30);
    expect(summaries.filter((s) => (s?.sent ?? 0) > 0).length).toBeGreaterThanOrEqual(2);
  });
});

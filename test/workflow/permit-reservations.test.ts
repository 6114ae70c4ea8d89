import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { randomUUID } from 'node:crypto';
import { IntentStatus } from '../../domain/intent';
import { permitReleaseTaskQueue } from '../../domain/task-queues';
import { startTimeSkippingServer } from '../harness/stack/temporal-servers';
import { Throttle } from '../../throttle/throttle';
import type { paymentIntentV2 } from '../../workflows';
import { fakeActivities } from '../harness/fake-activities';
import { runFakeWorker } from '../harness/fake-worker';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startTimeSkippingServer();
}, 60_000);
afterAll(() => env?.teardown());

/**
 * The real in-process throttle behind the permit step, its line on the test server's (skipped)
 * clock, as the timers it hands out are. Everything else is faked.
 */
async function withReservingWorker(
  perSecond: number,
  { sticky = true }: { sticky?: boolean },
  run: (parts: {
    taskQueue: string;
    throttle: Throttle;
    /** Answers other than a grant or a slot (an in-flight slot not had at once). */
    otherRefusals: Map<string, number>;
    grantedAt: Map<string, number>;
    /** The slot each intent was given when it had to wait, on the server's clock. */
    slotOf: Map<string, number>;
    calls: string[];
    /** Shuts the worker down as a deploy does (the drain), and starts another. */
    drain(): Promise<void>;
    resume(): Promise<void>;
  }) => Promise<void>,
) {
  let workflowNow = 0;
  const throttle = await Throttle.start(
    { maxInFlight: 1000, perSecond, burst: 1, maxWaitMs: 1000, permitTtlMs: 60_000 },
    undefined,
    () => workflowNow,
  );
  const taskQueue = `wf-${randomUUID()}`;
  const asks = new Map<string, number>();
  const otherRefusals = new Map<string, number>();
  const grantedAt = new Map<string, number>();
  const slotOf = new Map<string, number>();
  const { activities, calls } = fakeActivities(permitReleaseTaskQueue(taskQueue, 'p'), {
    tryAcquirePermit: async ({ intentId }) => {
      workflowNow = await env.currentTimeMs();
      const attempt = (asks.get(intentId) ?? 0) + 1;
      asks.set(intentId, attempt);
      const grant = await throttle.tryAcquire(`${intentId}/${attempt}`, intentId);
      if (!grant.granted) {
        if (grant.reason === 'reserved') slotOf.set(intentId, workflowNow + grant.retryAfterMs);
        else otherRefusals.set(intentId, (otherRefusals.get(intentId) ?? 0) + 1);
        return grant;
      }
      grantedAt.set(intentId, workflowNow);
      throttle.release(grant.permitId);
      return { ...grant, releaseQueue: permitReleaseTaskQueue(taskQueue, 'p') };
    },
    closeIntent: async ({ intentId }) => {
      await throttle.cancelSlot(intentId);
      return { status: IntentStatus.cancelled, ageMs: 1 };
    },
  });
  const startWorker = () =>
    runFakeWorker(env.nativeConnection, taskQueue, activities, {
      poolWidth: 16,
      drainTimeoutMs: 1000,
      // Without a cache for a drain: the test server does not hand a drained worker's sticky
      // tasks on.
      ...(!sticky && { maxCachedWorkflows: 0 }),
    });
  let current: Awaited<ReturnType<typeof startWorker>> | undefined = await startWorker();
  const drain = async () => {
    await current?.worker.shutdown();
    await current?.running;
    current = undefined;
  };
  const resume = async () => {
    current = await startWorker();
  };
  try {
    await run({ taskQueue, throttle, otherRefusals, grantedAt, slotOf, calls, drain, resume });
  } finally {
    await drain();
    await throttle.close();
  }
}

const start = (taskQueue: string, intentId: string) =>
  env.client.workflow.start<typeof paymentIntentV2>('paymentIntentV2', {
    taskQueue,
    workflowId: `intent-${intentId}-${randomUUID()}`,
    args: [{ intentId }],
  });

describe('permits by reservation (time-skipping)', () => {
  it('60 intents at 5/s: each throttled intent waits on one timer, and the slots keep the rate', async () => {
    await withReservingWorker(5, {}, async ({ taskQueue, otherRefusals, grantedAt }) => {
      const ids = Array.from({ length: 60 }, (_, index) => `pi_${index}`);
      const handles = await Promise.all(ids.map((id) => start(taskQueue, id)));
      // One result awaited at a time: the time-skipping client skips while it waits for one.
      const results = [];
      for (const handle of handles) results.push(await handle.result());
      expect(results.every((result) => result.status === IntentStatus.confirmed)).toBe(true);
      // A try, then its permit at its slot: one timer however many are ahead. (The in-flight
      // bound, 1,000 here, is never full; a refusal for it would be its own timer.)
      expect(otherRefusals).toEqual(new Map());
      expect(Math.max(...results.map((result) => result.permitRefusals))).toBeLessThanOrEqual(1);
      // Granted at the line's pace: 60 at 5/s take ~12 s of workflow time, never faster.
      const times = [...grantedAt.values()].sort((a, b) => a - b);
      expect(times[times.length - 1]! - times[0]!).toBeGreaterThanOrEqual(59 * 200 - 50);
    });
  }, 180_000);

  it('a cancel during a reservation gives its slot to the next intent to ask', async () => {
    // One slot a minute: the slots stay ahead of the server's clock, which runs with the wall
    // clock while the test waits, however slowly a loaded machine gets to the newcomer.
    await withReservingWorker(1 / 60, {}, async ({ taskQueue, grantedAt, slotOf }) => {
      // Of three intents, one goes now and two are given the next slots.
      const handles = new Map(
        await Promise.all(
          ['pi_a', 'pi_b', 'pi_c'].map(async (id) => [id, await start(taskQueue, id)] as const),
        ),
      );
      while (slotOf.size < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      const [earlier, later] = [...slotOf.entries()].sort((x, y) => x[1] - y[1]).map(([id]) => id);
      await handles.get(earlier!)!.cancel();
      // Awaited without skipping time (a plain client): the time-skipping client's result() lets
      // the server jump to the next timer, the later intent's slot, before the newcomer asks.
      const plainClient = new Client({ connection: env.connection });
      await expect(
        plainClient.workflow.getHandle(handles.get(earlier!)!.workflowId).result(),
      ).resolves.toMatchObject({ status: IntentStatus.cancelled });
      // A newcomer is given the cancelled slot, ahead of the later one, not the back of the line.
      const newcomer = await start(taskQueue, 'pi_newcomer');
      for (const handle of [...handles.values(), newcomer]) await handle.result();
      // (Each read back from a whole-ms wait: within a ms.)
      expect(Math.abs(slotOf.get('pi_newcomer')! - slotOf.get(earlier!)!)).toBeLessThanOrEqual(1);
      expect(grantedAt.get('pi_newcomer')!).toBeLessThan(grantedAt.get(later!)!);
      expect(grantedAt.has(earlier!)).toBe(false);
    });
  }, 60_000);

  it('a drain during reservations leaves the waiting intents untouched; the next worker takes them at their slots', async () => {
    // A slot every 5 s: the two that wait are still waiting when the drain comes; the one
    // granted at once is let finish first (a drain cutting a step off is the drain suite's).
    await withReservingWorker(
      0.2,
      { sticky: false },
      async ({ taskQueue, slotOf, calls, drain, resume }) => {
        const handles = await Promise.all(
          ['pi_x', 'pi_y', 'pi_z'].map((id) => start(taskQueue, id)),
        );
        while (slotOf.size < 2 || !calls.includes('confirm')) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await drain();
        // Only the intent granted at once was touched: the two with slots are `authorized`,
        // nothing marked, nothing held.
        expect(calls.filter((name) => name === 'markSettling')).toHaveLength(1);
        expect(calls.filter((name) => name === 'hold')).toHaveLength(1);
        await resume();
        for (const handle of handles) {
          expect(await handle.result()).toMatchObject({ status: IntentStatus.confirmed });
        }
        const results = await Promise.all(handles.map((handle) => handle.result()));
        expect(Math.max(...results.map((result) => result.permitRefusals))).toBeLessThanOrEqual(1);
      },
    );
  }, 60_000);
});

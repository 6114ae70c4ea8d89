import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { randomUUID } from 'node:crypto';
import { startTimeSkippingServer } from '../harness/stack/temporal-servers';
import { IntentStatus } from '../../domain/intent';
import { DeadlinePassedError } from '../../domain/errors';
import { permitReleaseTaskQueue } from '../../domain/task-queues';
import type { paymentIntentV2, PaymentIntentInput } from '../../workflows';
import { decideApprovalUpdate, intentResumedSignal } from '../../workflows/payment-intent/messages';
import { fakeActivities, type ActivityOverrides } from '../harness/fake-activities';
import { runFakeWorker } from '../harness/fake-worker';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startTimeSkippingServer();
}, 60_000);
afterAll(() => env?.teardown());

const minute = 60_000;

/**
 * One intent run with faked steps; `deadlines` in ms from its start (workflow time). The closing
 * step's parameters are kept: which code the run ended with.
 */
async function runWithDeadlines(
  deadlines: { validUntilIn?: number; notBeforeIn?: number },
  overrides: ActivityOverrides = {},
  extra: Partial<PaymentIntentInput> = {},
  meanwhile?: (handle: WorkflowHandle) => Promise<void>,
) {
  const taskQueue = `wf-${randomUUID()}`;
  const closes: unknown[] = [];
  const { activities, calls } = fakeActivities(
    permitReleaseTaskQueue(taskQueue, 'p'),
    (defaults) => ({
      closeIntent: async (parameters) => {
        closes.push(parameters.reasonCode);
        return defaults.closeIntent(parameters);
      },
      ...(typeof overrides === 'function' ? overrides(defaults) : overrides),
    }),
  );
  // Which step ran when, in workflow time from the start.
  const at: Partial<Record<string, number>> = {};
  const timed = Object.fromEntries(
    Object.entries(activities).map(([name, step]) => [
      name,
      async (...args: unknown[]) => {
        at[name] ??= (await env.currentTimeMs()) - startedAt;
        return (step as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as typeof activities;
  const { worker, running } = await runFakeWorker(env.nativeConnection, taskQueue, timed, {
    poolWidth: 4,
    drainTimeoutMs: 1000,
  });
  const startedAt = await env.currentTimeMs();
  try {
    const handle = await env.client.workflow.start<typeof paymentIntentV2>('paymentIntentV2', {
      taskQueue,
      workflowId: `intent-${randomUUID()}`,
      args: [
        {
          intentId: 'pi_deadline',
          ...(deadlines.validUntilIn !== undefined && {
            validUntil: startedAt + deadlines.validUntilIn,
          }),
          ...(deadlines.notBeforeIn !== undefined && {
            notBefore: startedAt + deadlines.notBeforeIn,
          }),
          ...extra,
        },
      ],
    });
    await meanwhile?.(handle);
    const result = await handle.result();
    // The run's own span as the server recorded it (time skips on once nothing waits).
    const { startTime, closeTime } = await handle.describe();
    return { result, calls, closes, at, workflowMs: closeTime!.getTime() - startTime.getTime() };
  } finally {
    await worker.shutdown();
    await running;
  }
}

describe('an intent with a deadline (time-skipping)', () => {
  it('refused permits until its validUntil: ends expired then, nothing held or signed', async () => {
    const { result, calls, closes, workflowMs } = await runWithDeadlines(
      { validUntilIn: 5 * minute },
      {
        tryAcquirePermit: async () => ({
          granted: false,
          reason: 'busy',
          retryAfterMs: 2 * minute,
        }),
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.expired, reasonCode: 'deadline_passed' });
    expect(closes).toEqual(['deadline_passed']);
    expect(calls).not.toContain('markSettling');
    expect(calls).not.toContain('broadcast');
    // Ended at its deadline, not at the next permit try after it (6 minutes).
    // (The run starts a moment after the test reads the time its deadline counts from.)
    expect(workflowMs).toBeGreaterThanOrEqual(5 * minute - 1000);
    expect(workflowMs).toBeLessThan(6 * minute);
  });

  it('a send step that refuses past the deadline (DeadlinePassed) ends it expired at once', async () => {
    let sends = 0;
    const { result, calls, closes } = await runWithDeadlines(
      { validUntilIn: 10 * minute },
      {
        broadcast: async () => {
          sends++;
          throw new DeadlinePassedError('pi_deadline', new Date());
        },
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.expired, reasonCode: 'deadline_passed' });
    expect(closes).toEqual(['deadline_passed']);
    // Not retried: the catalogue lists it as non-retryable.
    expect(sends).toBe(1);
    expect(calls).toContain('releaseThrottle');
  });

  it('sent before its validUntil and mined after it: ends as the receipt says (confirmed)', async () => {
    let looks = 0;
    const { result } = await runWithDeadlines({ validUntilIn: minute }, (defaults) => ({
      confirm: async (parameters) =>
        ++looks < 4
          ? { state: 'pending', confirmations: 0, retryAfterMs: 30_000 }
          : defaults.confirm(parameters),
    }));
    expect(looks).toBe(4);
    expect(result).toMatchObject({ status: IntentStatus.confirmed });
  });

  it('waits for notBefore on a timer, asking for no permit until then', async () => {
    const { result, at } = await runWithDeadlines({ notBeforeIn: 30 * minute });
    expect(result).toMatchObject({ status: IntentStatus.confirmed });
    // A wait longer than a minute leaves its build first, as before a wait for a person.
    expect(at.allowUpgrade).toBeLessThan(minute);
    expect(at.tryAcquirePermit).toBeGreaterThanOrEqual(30 * minute);
  });

  it('approved after its validUntil: expires without asking for a permit', async () => {
    const { result, calls } = await runWithDeadlines(
      { validUntilIn: minute },
      {},
      { awaitingApproval: true, approvalTtlMs: 60 * minute },
      async (handle) => {
        await env.sleep(2 * minute);
        await handle.executeUpdate(decideApprovalUpdate, {
          args: [{ decision: 'approve', actor: 'cfo', keyId: 'key-cfo' }],
        });
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.expired, reasonCode: 'deadline_passed' });
    expect(calls).toContain('decideApproval');
    expect(calls).not.toContain('tryAcquirePermit');
  });
});

describe('a paused intent (time-skipping)', () => {
  /** The permit step refuses while `paused()` says so, as it does under an operator's pause. */
  const pausedWhile =
    (paused: () => boolean): ActivityOverrides =>
    (defaults) => ({
      tryAcquirePermit: async (parameters) =>
        paused()
          ? { granted: false, reason: 'paused', retryAfterMs: 5 * minute, pauseId: 'pz_test' }
          : defaults.tryAcquirePermit(parameters),
    });

  it('waits for its resume signal holding nothing, then takes its permit at once', async () => {
    let paused = true;
    const { result, at, calls } = await runWithDeadlines(
      {},
      pausedWhile(() => paused),
      {},
      async (handle) => {
        await env.sleep(2 * minute);
        paused = false;
        await handle.signal(intentResumedSignal);
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.confirmed, permitRefusals: 0 });
    // Asked once before the pause's recheck time, once at the signal: not every few seconds.
    expect(calls.filter((call) => call === 'tryAcquirePermit')).toHaveLength(2);
    expect(at.markSettling).toBeGreaterThanOrEqual(2 * minute);
    expect(at.markSettling).toBeLessThan(5 * minute);
  });

  it('paused for an hour with no signal, asks again only every five minutes', async () => {
    let paused = true;
    const { result, calls } = await runWithDeadlines(
      {},
      pausedWhile(() => paused),
      {},
      async () => {
        await env.sleep(61 * minute);
        paused = false;
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.confirmed });
    const asks = calls.filter((call) => call === 'tryAcquirePermit').length;
    expect(asks).toBeGreaterThanOrEqual(12);
    expect(asks).toBeLessThanOrEqual(14);
  });

  it('paused past its validUntil: ends expired at its deadline', async () => {
    const { result, workflowMs } = await runWithDeadlines(
      { validUntilIn: 7 * minute },
      pausedWhile(() => true),
    );
    expect(result).toMatchObject({ status: IntentStatus.expired, reasonCode: 'deadline_passed' });
    expect(workflowMs).toBeLessThan(8 * minute);
  });
});

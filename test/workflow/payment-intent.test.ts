import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { randomUUID } from 'node:crypto';
import { ErrorType, InsufficientBalanceError } from '../../domain/errors';
import { IntentStatus } from '../../domain/intent';
import { permitReleaseTaskQueue } from '../../domain/task-queues';
import { startTimeSkippingServer } from '../../stack/temporal-servers';
import { createRelayerWorker } from '../../workers/relayer-worker';
import type { paymentIntent, PaymentIntentInput } from '../../workflows';
import { intentProgressQuery } from '../../workflows';
import { fakeActivities, type ActivityOverrides } from '../support/fake-activities';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startTimeSkippingServer();
}, 60_000);
afterAll(() => env?.teardown());

/** Runs one intent workflow through the real worker wiring with faked activities. */
async function runIntent(
  overrides: ActivityOverrides,
  input: Partial<PaymentIntentInput> = {},
  meanwhile?: (handle: WorkflowHandle) => Promise<void>,
) {
  const taskQueue = `wf-${randomUUID()}`;
  const processId = 'test-process';
  const { activities, calls } = fakeActivities(
    permitReleaseTaskQueue(taskQueue, processId),
    overrides,
  );
  const worker = await createRelayerWorker({
    connection: env.nativeConnection,
    namespace: 'default',
    taskQueue,
    processId,
    activities,
    poolWidth: 4,
    throttleWaiters: 10,
    drainTimeoutMs: 1000,
  });
  const running = worker.run();
  try {
    const startedAt = await env.currentTimeMs();
    const handle = await env.client.workflow.start<typeof paymentIntent>('paymentIntent', {
      taskQueue,
      workflowId: `intent-${randomUUID()}`,
      args: [{ intentId: 'pi_test', ...input }],
    });
    await meanwhile?.(handle);
    const result = await handle.result();
    const elapsedMs = (await env.currentTimeMs()) - startedAt;
    return { result, calls, elapsedMs };
  } finally {
    await worker.shutdown();
    await running;
  }
}

describe('paymentIntent workflow (time-skipping)', () => {
  it('runs the steps in order: permit, settling, hold, broadcast, release, confirm', async () => {
    const { result, calls } = await runIntent({});
    expect(result).toMatchObject({
      status: IntentStatus.confirmed,
      txHash: '0xabc',
      blockNumber: '7',
    });
    expect(calls.slice(0, 4)).toEqual(['acquireThrottle', 'markSettling', 'hold', 'broadcast']);
    expect(calls.slice(4).sort()).toEqual(['confirm', 'releaseThrottle']);
  });

  it('waits for confirmations on workflow timers, not inside an activity', async () => {
    let looks = 0;
    const { result, calls, elapsedMs } = await runIntent({
      confirm: async () =>
        ++looks < 4
          ? { state: 'pending', confirmations: looks - 1, retryAfterMs: 12_000 }
          : { state: 'confirmed', blockNumber: '9', ageMs: 1 },
    });
    expect(result.status).toBe(IntentStatus.confirmed);
    expect(calls.filter((c) => c === 'confirm')).toHaveLength(4);
    expect(elapsedMs).toBeGreaterThanOrEqual(36_000);
  });

  it('touches nothing while the throttle refuses, then proceeds once granted', async () => {
    let asks = 0;
    const { result, calls, elapsedMs } = await runIntent((defaults) => ({
      acquireThrottle: async (parameters) =>
        ++asks <= 3
          ? { granted: false, reason: 'busy', retryAfterMs: 30_000 }
          : defaults.acquireThrottle(parameters),
    }));
    expect(calls.slice(0, 5)).toEqual([
      'acquireThrottle',
      'acquireThrottle',
      'acquireThrottle',
      'acquireThrottle',
      'markSettling',
    ]);
    expect(result).toMatchObject({ status: IntentStatus.confirmed, permitRefusals: 3 });
    expect(elapsedMs).toBeGreaterThanOrEqual(90_000);
  });

  it('never sends a throttled intent to review, however long the throttle refuses', async () => {
    const taskQueue = `wf-${randomUUID()}`;
    const { activities, calls } = fakeActivities(permitReleaseTaskQueue(taskQueue, 'p'), {
      acquireThrottle: async () => ({ granted: false, reason: 'timeout', retryAfterMs: 60_000 }),
    });
    const worker = await createRelayerWorker({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue,
      processId: 'p',
      activities,
      poolWidth: 2,
      throttleWaiters: 10,
      drainTimeoutMs: 0,
    });
    const running = worker.run();
    const handle = await env.client.workflow.start<typeof paymentIntent>('paymentIntent', {
      taskQueue,
      workflowId: `intent-${randomUUID()}`,
      args: [{ intentId: 'pi_throttled' }],
    });
    await env.sleep('2 hours');
    const progress = await handle.query(intentProgressQuery);
    expect(progress.status).toBe(IntentStatus.authorized);
    expect(progress.permitRefusals).toBeGreaterThanOrEqual(10);
    expect(new Set(calls)).toEqual(new Set(['acquireThrottle']));
    await handle.terminate();
    await worker.shutdown();
    await running;
  });

  it('fails an intent the tenant cannot cover, without broadcasting, and releases the permit', async () => {
    const { result, calls } = await runIntent({
      hold: async () => {
        throw new InsufficientBalanceError('acme', 1n, 2n);
      },
    });
    expect(result.status).toBe(IntentStatus.failed);
    expect(result.reason).toMatch(new RegExp(`^${ErrorType.insufficientBalance}: `));
    expect(calls).not.toContain('broadcast');
    expect(calls).toContain('releaseThrottle');
    expect(calls.filter((c) => c === 'hold')).toHaveLength(1);
  });

  it('keeps re-sending a signed transaction for five minutes, then asks a person', async () => {
    let attempts = 0;
    const { result, calls, elapsedMs } = await runIntent({
      broadcast: async () => {
        attempts++;
        throw new Error('connection refused');
      },
      closeIntent: async () => ({ status: IntentStatus.needsReview, ageMs: 1 }),
    });
    expect(result.status).toBe(IntentStatus.needsReview);
    expect(result.reason).toBe(
      'broadcast still failing when its time ran out; last error Error: connection refused',
    );
    expect(attempts).toBeGreaterThan(1);
    // Temporal stops once the next retry (backoff capped at 30 s) could not start in time. (No
    // upper bound: the test server may skip past the deadline while an attempt is in flight.)
    expect(elapsedMs).toBeGreaterThanOrEqual(4.5 * 60_000);
    expect(calls).not.toContain('confirm');
    expect(calls).toContain('releaseThrottle');
  });

  it('sends a transaction that is never mined to review after the confirmation timeout', async () => {
    const { result, elapsedMs } = await runIntent(
      { confirm: async () => ({ state: 'pending', confirmations: 0, retryAfterMs: 60_000 }) },
      { confirmTimeoutMs: 20 * 60_000 },
    );
    expect(result.status).toBe(IntentStatus.needsReview);
    expect(result.reason).toMatch(
      /^ConfirmationTimeout: transaction 0xabc not confirmed within 1200s/,
    );
    expect(elapsedMs).toBeGreaterThanOrEqual(20 * 60_000);
  });

  it('closes the intent when the workflow is cancelled while it waits for a permit', async () => {
    const { result, calls } = await runIntent(
      {
        acquireThrottle: async () => ({ granted: false, reason: 'busy', retryAfterMs: 10_000 }),
        closeIntent: async () => ({ status: IntentStatus.cancelled, ageMs: 1 }),
      },
      {},
      async (handle) => {
        await env.sleep(60_000);
        await handle.cancel();
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.cancelled, reason: 'cancelled' });
    expect(calls).not.toContain('markSettling');
    expect(calls.at(-1)).toBe('closeIntent');
  });

  it('records a reverted transaction as failed', async () => {
    const { result, calls } = await runIntent({
      confirm: async () => ({ state: 'reverted', blockNumber: '3', ageMs: 1 }),
    });
    expect(result).toMatchObject({
      status: IntentStatus.failed,
      reason: 'transaction reverted on-chain',
    });
    expect(calls).not.toContain('closeIntent');
  });
});

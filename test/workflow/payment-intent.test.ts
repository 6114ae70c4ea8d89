import {
  WorkflowUpdateStage,
  type WorkflowHandle,
  type WorkflowUpdateHandle,
} from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { randomUUID } from 'node:crypto';
import {
  ApprovalRefusedError,
  InsufficientBalanceError,
  ReviewRefusedError,
} from '../../domain/errors';
import {
  decideApprovalUpdate,
  resolveReviewUpdate,
  transactionSeenSignal,
} from '../../workflows/payment-intent/messages';
import { ErrorName } from '../../domain/error-catalogue';
import { cancelledOnChainReason, IntentStatus } from '../../domain/intent';
import { permitReleaseTaskQueue } from '../../domain/task-queues';
import { startTimeSkippingServer } from '../harness/stack/temporal-servers';
import type { paymentIntentV2, PaymentIntentInput, PaymentIntentProgress } from '../../workflows';
import type { ReviewOutcome } from '../../domain/review';
import { intentProgressQuery } from '../../workflows';
import { unminedLookGapMs } from '../../activities/confirm/move';
import { fakeActivities, reviewOutcome, type ActivityOverrides } from '../harness/fake-activities';
import { runFakeWorker } from '../harness/fake-worker';

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
  const { activities, calls } = fakeActivities(permitReleaseTaskQueue(taskQueue, 'p'), overrides);
  const { worker, running } = await runFakeWorker(env.nativeConnection, taskQueue, activities, {
    poolWidth: 4,
    drainTimeoutMs: 1000,
  });
  try {
    const startedAt = await env.currentTimeMs();
    const handle = await env.client.workflow.start<typeof paymentIntentV2>('paymentIntentV2', {
      taskQueue,
      workflowId: `intent-${randomUUID()}`,
      args: [{ intentId: 'pi_test', ...input }],
    });
    await meanwhile?.(handle);
    const result = await handle.result();
    const elapsedMs = (await env.currentTimeMs()) - startedAt;
    // The run's own span, as the server recorded it (its workflow time).
    const { startTime, closeTime } = await handle.describe();
    const workflowMs = closeTime!.getTime() - startTime.getTime();
    return { result, calls, elapsedMs, workflowMs, closedAt: closeTime!.getTime() };
  } finally {
    await worker.shutdown();
    await running;
  }
}

/** A promise and its resolve, for a fake step to hand a test what it did. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** Waits (in real time, a moment) until the workflow's progress shows `status`. */
async function untilStatus(handle: WorkflowHandle, status: IntentStatus): Promise<void> {
  while ((await handle.query(intentProgressQuery)).status !== status) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Lets time pass until the workflow waits in needs_review; its progress then. */
async function untilInReview(handle: WorkflowHandle): Promise<PaymentIntentProgress> {
  for (;;) {
    const progress = await handle.query(intentProgressQuery);
    if (progress.status === IntentStatus.needsReview) return progress;
    await env.sleep(30_000);
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
    expect(calls.slice(0, 4)).toEqual(['tryAcquirePermit', 'markSettling', 'hold', 'broadcast']);
    expect(calls.slice(4).sort()).toEqual(['confirm', 'releaseThrottle']);
  });

  it('needs no release step when the send gave the permit back in the process holding it', async () => {
    const { result, calls } = await runIntent((defaults) => ({
      broadcast: async (parameters) => ({
        ...(await defaults.broadcast(parameters)),
        permitReleased: true,
      }),
    }));
    expect(result.status).toBe(IntentStatus.confirmed);
    expect(calls).toEqual(['tryAcquirePermit', 'markSettling', 'hold', 'broadcast', 'confirm']);
  });

  it('asks the server-paced queue when the permits are the server’s (QUOTA_MODE=task-queue)', async () => {
    const { result, calls } = await runIntent({
      tryAcquirePermit: async () => ({ granted: false, reason: 'server-paced', retryAfterMs: 0 }),
    });
    expect(result.status).toBe(IntentStatus.confirmed);
    expect(calls.slice(0, 3)).toEqual(['tryAcquirePermit', 'acquireThrottle', 'markSettling']);
  });

  it('keeps the history of the intent’s transactions when a replacement takes over', async () => {
    let looks = 0;
    const { result } = await runIntent({
      confirm: async () =>
        ++looks === 1
          ? { state: 'pending', confirmations: 0, retryAfterMs: 1000, txHash: '0xdef' }
          : { state: 'confirmed', blockNumber: '8', ageMs: 1, txHash: '0xdef' },
    });
    expect(result).toMatchObject({ txHash: '0xdef', txHashes: ['0xabc', '0xdef'] });
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

  it('first looks at the receipt once the chain’s block time has passed', async () => {
    const { result, calls, elapsedMs } = await runIntent((defaults) => ({
      broadcast: async (parameters) => ({
        ...(await defaults.broadcast(parameters)),
        firstLookAfterMs: 24_000,
      }),
    }));
    expect(result.status).toBe(IntentStatus.confirmed);
    expect(calls.filter((c) => c === 'confirm')).toHaveLength(1);
    expect(elapsedMs).toBeGreaterThanOrEqual(24_000);
  });

  it('touches nothing while the throttle refuses, then proceeds once granted', async () => {
    let asks = 0;
    const { result, calls, elapsedMs } = await runIntent((defaults) => ({
      tryAcquirePermit: async (parameters) =>
        ++asks <= 3
          ? { granted: false, reason: 'busy', retryAfterMs: 30_000 }
          : defaults.tryAcquirePermit(parameters),
    }));
    expect(calls.slice(0, 5)).toEqual([
      'tryAcquirePermit',
      'tryAcquirePermit',
      'tryAcquirePermit',
      'tryAcquirePermit',
      'markSettling',
    ]);
    expect(result).toMatchObject({ status: IntentStatus.confirmed, permitRefusals: 3 });
    expect(elapsedMs).toBeGreaterThanOrEqual(90_000);
  });

  it('never sends a throttled intent to review, however long the throttle refuses', async () => {
    const taskQueue = `wf-${randomUUID()}`;
    const { activities, calls } = fakeActivities(permitReleaseTaskQueue(taskQueue, 'p'), {
      tryAcquirePermit: async () => ({ granted: false, reason: 'busy', retryAfterMs: 60_000 }),
    });
    const { worker, running } = await runFakeWorker(env.nativeConnection, taskQueue, activities);
    const handle = await env.client.workflow.start<typeof paymentIntentV2>('paymentIntentV2', {
      taskQueue,
      workflowId: `intent-${randomUUID()}`,
      args: [{ intentId: 'pi_throttled' }],
    });
    // Six times the five minutes after which a failing send goes to review.
    await env.sleep('30 minutes');
    const progress = await handle.query(intentProgressQuery);
    expect(progress.status).toBe(IntentStatus.authorized);
    expect(progress.permitRefusals).toBeGreaterThanOrEqual(10);
    expect(new Set(calls)).toEqual(new Set(['tryAcquirePermit']));
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
    expect(result.reasonCode).toBe('insufficient_balance');
    expect(calls).not.toContain('broadcast');
    expect(calls).toContain('releaseThrottle');
    expect(calls.filter((c) => c === 'hold')).toHaveLength(1);
  });

  it('keeps re-sending a signed transaction for five minutes, then waits in review for a person', async () => {
    let attempts = 0;
    let inReview: PaymentIntentProgress | undefined;
    const { result, calls, elapsedMs } = await runIntent(
      {
        broadcast: async () => {
          attempts++;
          throw new Error('connection refused');
        },
        closeIntent: async () => ({ status: IntentStatus.needsReview, ageMs: 1 }),
      },
      {},
      async (handle) => {
        inReview = await untilInReview(handle);
        await handle.executeUpdate(resolveReviewUpdate, {
          args: [{ decision: { action: 'fail', reason: 'never reached a node' }, actor: 'op' }],
        });
      },
    );
    expect(inReview?.reason).toBe(
      'broadcast still failing when its time ran out; last error Error: connection refused',
    );
    expect(attempts).toBeGreaterThan(1);
    // Temporal stops once the next retry (backoff capped at 30 s) could not start in time. (No
    // upper bound: the test server may skip past the deadline while an attempt is in flight.)
    expect(elapsedMs).toBeGreaterThanOrEqual(4.5 * 60_000);
    expect(calls).not.toContain('confirm');
    expect(calls).toContain('releaseThrottle');
    expect(calls.at(-1)).toBe('resolveReview');
    expect(result).toMatchObject({ status: IntentStatus.failed, reason: /resolved as failed/ });
  });

  it('keeps re-sending for the send window the intent started with (SEND_WINDOW_MS), not five minutes', async () => {
    let attempts = 0;
    let inReviewAfterMs = 0;
    await runIntent(
      {
        broadcast: async () => {
          attempts++;
          throw new Error('connection refused');
        },
        closeIntent: async () => ({ status: IntentStatus.needsReview, ageMs: 1 }),
      },
      { sendWindowMs: 60_000 },
      async (handle) => {
        const { startTime } = await handle.describe();
        // Time moves only by untilInReview's 30 s steps here, so this is when review came.
        await untilInReview(handle);
        inReviewAfterMs = (await env.currentTimeMs()) - startTime.getTime();
        await handle.executeUpdate(resolveReviewUpdate, {
          args: [{ decision: { action: 'fail', reason: 'never reached a node' }, actor: 'op' }],
        });
      },
    );
    expect(attempts).toBeGreaterThan(1);
    expect(inReviewAfterMs).toBeGreaterThanOrEqual(45_000);
    expect(inReviewAfterMs).toBeLessThan(3 * 60_000);
  });

  it('sends a transaction that is never mined to review after the confirmation timeout; a retry follows it to confirmed', async () => {
    let looks = 0;
    let inReview: PaymentIntentProgress | undefined;
    const { result, calls, elapsedMs } = await runIntent(
      {
        confirm: async () =>
          ++looks < 30
            ? { state: 'pending', confirmations: 0, retryAfterMs: 60_000 }
            : { state: 'confirmed', blockNumber: '9', ageMs: 1 },
      },
      { confirmTimeoutMs: 20 * 60_000 },
      async (handle) => {
        inReview = await untilInReview(handle);
        await handle.executeUpdate(resolveReviewUpdate, {
          args: [{ decision: { action: 'retry' }, actor: 'op' }],
        });
      },
    );
    expect(inReview?.reasonCode).toBe('confirmation_timeout');
    expect(inReview?.reason).toMatch(
      /^ConfirmationTimeout: transaction 0xabc not confirmed within 1200s/,
    );
    expect(elapsedMs).toBeGreaterThanOrEqual(20 * 60_000);
    expect(calls.filter((call) => call === 'broadcast')).toHaveLength(2);
    expect(result).toMatchObject({
      status: IntentStatus.confirmed,
      blockNumber: '9',
      reason: null,
    });
  });

  it('a payment unmined for 30 minutes, looked at as the confirm step spaces its looks, keeps its history under 200 events', async () => {
    // The payment's age at each look, as the workflow's timers make it (a look takes no time).
    let waitedMs = 0;
    let looks = 0;
    let eventsInReview = 0;
    await runIntent(
      {
        confirm: async () => {
          looks++;
          const retryAfterMs = unminedLookGapMs(waitedMs, 1000);
          waitedMs += retryAfterMs;
          return { state: 'pending', confirmations: 0, retryAfterMs };
        },
      },
      { confirmTimeoutMs: 30 * 60_000 },
      async (handle) => {
        await untilInReview(handle);
        eventsInReview = (await handle.fetchHistory()).events!.length;
        await handle.executeUpdate(resolveReviewUpdate, {
          args: [{ decision: { action: 'fail', reason: 'never mined' }, actor: 'op' }],
        });
      },
    );
    // Thirteen spaced looks and one at the confirmation timeout: 14 × 11 events, and the rest.
    expect(looks).toBe(14);
    expect(eventsInReview).toBeLessThanOrEqual(200);
  });

  it("a payment mined after 10 minutes unmined is looked at when a block holds it (the follower's signal), not 1.5 × 10 minutes later", async () => {
    let waitedMs = 0;
    let mined = false;
    let signalledAt = 0;
    const { result, closedAt } = await runIntent(
      {
        confirm: async () => {
          if (mined) return { state: 'confirmed', blockNumber: '9', ageMs: 1 };
          const retryAfterMs = unminedLookGapMs(waitedMs, 1000);
          waitedMs += retryAfterMs;
          return { state: 'pending', confirmations: 0, retryAfterMs };
        },
      },
      { confirmTimeoutMs: 30 * 60_000 },
      async (handle) => {
        await env.sleep(10 * 60_000);
        mined = true;
        signalledAt = await env.currentTimeMs();
        await handle.signal(transactionSeenSignal);
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.confirmed });
    // Closed at the signal's look: without it, the next spaced look came up to 5 minutes later.
    expect(closedAt - signalledAt).toBeLessThan(5_000);
  });

  it('frees a lane nobody has the transaction of: after the confirmation timeout the relayer cancels it, followed to failed', async () => {
    let freed = false;
    const { result, calls } = await runIntent(
      {
        confirm: async () =>
          freed
            ? { state: 'cancelled', blockNumber: '11', ageMs: 1, txHash: '0xcancel' }
            : { state: 'pending', confirmations: 0, retryAfterMs: 60_000 },
        freeAbandonedLane: async () => {
          freed = true;
          return reviewOutcome('cancel');
        },
      },
      { confirmTimeoutMs: 10 * 60_000 },
    );
    expect(calls.filter((call) => call === 'freeAbandonedLane')).toHaveLength(1);
    expect(calls).not.toContain('resolveReview');
    expect(calls.filter((call) => call === 'broadcast')).toHaveLength(2);
    expect(result).toMatchObject({
      status: IntentStatus.failed,
      blockNumber: '11',
      reason: cancelledOnChainReason,
    });
  });

  it('keeps waiting for a person while the lane rule does not apply, trying it every confirmation timeout', async () => {
    const confirmTimeoutMs = 5 * 60_000;
    const { result, calls } = await runIntent(
      { confirm: async () => ({ state: 'pending', confirmations: 0, retryAfterMs: 60_000 }) },
      { confirmTimeoutMs },
      async (handle) => {
        await untilInReview(handle);
        // Tried on entering review, then at 5 and 10 minutes.
        await env.sleep(2 * confirmTimeoutMs + 60_000);
        await handle.executeUpdate(resolveReviewUpdate, {
          args: [{ decision: { action: 'fail', reason: 'looked at it' }, actor: 'op' }],
        });
      },
    );
    expect(calls.filter((call) => call === 'freeAbandonedLane')).toHaveLength(3);
    expect(result).toMatchObject({ status: IntentStatus.failed, reason: /resolved as failed/ });
  });

  it.each([
    ['the rule does not apply: the decision is applied', false],
    ['the rule cancels: the decision is refused as too late', true],
  ])(
    "an operator's decision sent while the lane rule looks waits for its answer — %s",
    async (_, frees) => {
      let answerLook: () => void = () => undefined;
      const lookAnswered = new Promise<void>((resolve) => (answerLook = resolve));
      let lookStarted: () => void = () => undefined;
      const looking = new Promise<void>((resolve) => (lookStarted = resolve));
      let freed = false;
      let decision: Promise<unknown> | undefined;
      const { result } = await runIntent(
        {
          confirm: async () =>
            freed
              ? { state: 'cancelled', blockNumber: '11', ageMs: 1 }
              : { state: 'pending', confirmations: 0, retryAfterMs: 60_000 },
          freeAbandonedLane: async () => {
            lookStarted();
            await lookAnswered;
            freed = frees;
            return frees ? reviewOutcome('cancel') : null;
          },
        },
        { confirmTimeoutMs: 5 * 60_000 },
        async (handle) => {
          await untilInReview(handle);
          await looking;
          decision = handle.executeUpdate(resolveReviewUpdate, {
            args: [{ decision: { action: 'fail', reason: 'looked at it' }, actor: 'op' }],
          });
          // The update is in the workflow's hands before the look answers.
          await env.sleep(1000);
          answerLook();
          if (frees) {
            await expect(decision).rejects.toMatchObject({ cause: { type: 'NotInReview' } });
          } else {
            await decision;
          }
        },
      );
      expect(result).toMatchObject(
        frees
          ? { status: IntentStatus.failed, reason: cancelledOnChainReason }
          : { status: IntentStatus.failed, reason: /resolved as failed/ },
      );
    },
  );

  it('applies a decision sent as the books say needs_review once the run waits in review; keeps waiting after a refused one', async () => {
    const started = deferred<WorkflowHandle>();
    const sentEarly = deferred<WorkflowUpdateHandle<ReviewOutcome>>();
    const confirm = { action: 'confirm', txHash: `0x${'7'.repeat(64)}` } as const;
    let refuse = true;
    const { result, calls } = await runIntent(
      {
        // The step writes needs_review before its workflow takes the result: a decision the API
        // sends then reaches a run that does not wait in review yet.
        confirm: async () => {
          const handle = await started.promise;
          sentEarly.resolve(
            await handle.startUpdate(resolveReviewUpdate, {
              args: [{ decision: confirm, actor: 'op' }],
              waitForStage: WorkflowUpdateStage.ACCEPTED,
            }),
          );
          return { state: 'mismatch', blockNumber: '4', ageMs: 1, reason: 'TokenShortfall: short' };
        },
        resolveReview: async ({ decision }) => {
          if (refuse)
            throw new ReviewRefusedError('pi_test', 'transaction_not_found', 'no such tx');
          return reviewOutcome(decision.action);
        },
      },
      {},
      async (handle) => {
        started.resolve(handle);
        const early = await sentEarly.promise;
        await expect(early.result()).rejects.toMatchObject({
          cause: { type: ErrorName.reviewRefused },
        });
        expect((await handle.query(intentProgressQuery)).status).toBe(IntentStatus.needsReview);
        refuse = false;
        await handle.executeUpdate(resolveReviewUpdate, {
          args: [{ decision: confirm, actor: 'op' }],
        });
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.confirmed, blockNumber: '7' });
    expect(calls.filter((call) => call === 'resolveReview')).toHaveLength(2);
  });

  describe('four eyes: an intent awaiting approval', () => {
    const ttl = { awaitingApproval: true, approvalTtlMs: 72 * 3600_000 };
    const day = 24 * 3600_000;

    it('approved two days later: only then takes its permit, and is paid', async () => {
      const { result, calls, workflowMs } = await runIntent({}, ttl, async (handle) => {
        await env.sleep(2 * day);
        expect((await handle.query(intentProgressQuery)).status).toBe(
          IntentStatus.awaitingApproval,
        );
        await handle.executeUpdate(decideApprovalUpdate, {
          args: [{ decision: 'approve', actor: 'cfo', keyId: 'key-cfo' }],
        });
      });
      expect(result).toMatchObject({ status: IntentStatus.confirmed });
      // Moved off its build before the wait (allowUpgrade), then nothing until the decision.
      expect(calls.slice(0, 4)).toEqual([
        'allowUpgrade',
        'decideApproval',
        'tryAcquirePermit',
        'markSettling',
      ]);
      expect(workflowMs).toBeGreaterThanOrEqual(2 * day);
      expect(workflowMs).toBeLessThan(ttl.approvalTtlMs);
    });

    it('never approved: rejected at the TTL, with no permit taken and nothing held', async () => {
      const { result, calls, workflowMs } = await runIntent(
        {
          decideApproval: async ({ decision }) => {
            expect(decision).toBe('expire');
            return { status: IntentStatus.rejected };
          },
        },
        ttl,
      );
      expect(result).toMatchObject({ status: IntentStatus.rejected });
      expect(calls).toEqual(['allowUpgrade', 'decideApproval']);
      expect(workflowMs).toBeGreaterThanOrEqual(ttl.approvalTtlMs);
      expect(workflowMs).toBeLessThan(ttl.approvalTtlMs + 60_000);
    });

    it('cancelled while it waits: closed at once, no permit taken', async () => {
      const { result, calls } = await runIntent(
        { closeIntent: async () => ({ status: IntentStatus.cancelled, ageMs: 1 }) },
        ttl,
        async (handle) => {
          await env.sleep(3600_000);
          await handle.cancel();
        },
      );
      expect(result).toMatchObject({ status: IntentStatus.cancelled });
      expect(calls).toEqual(['allowUpgrade', 'closeIntent']);
    });

    it('the submitting key is refused and the intent keeps waiting; another key approves it; a late decision is refused', async () => {
      const sending = deferred<void>();
      const lateAnswered = deferred<void>();
      const { result, calls } = await runIntent(
        (defaults) => ({
          decideApproval: async (parameters) => {
            if ('keyId' in parameters && parameters.keyId === 'key-submitter') {
              throw new ApprovalRefusedError('pi_test', parameters.keyId);
            }
            return defaults.decideApproval(parameters);
          },
          // Approved, it goes on and waits at its send until the late decision has its answer.
          broadcast: async (parameters) => {
            sending.resolve();
            await lateAnswered.promise;
            return defaults.broadcast(parameters);
          },
        }),
        ttl,
        async (handle) => {
          await expect(
            handle.executeUpdate(decideApprovalUpdate, {
              args: [{ decision: 'approve', actor: 'clerk', keyId: 'key-submitter' }],
            }),
          ).rejects.toMatchObject({ cause: { type: ErrorName.approvalRefused } });
          expect((await handle.query(intentProgressQuery)).status).toBe(
            IntentStatus.awaitingApproval,
          );
          await handle.executeUpdate(decideApprovalUpdate, {
            args: [{ decision: 'approve', actor: 'cfo', keyId: 'key-cfo' }],
          });
          await sending.promise;
          await expect(
            handle.executeUpdate(decideApprovalUpdate, {
              args: [{ decision: 'reject', actor: 'cfo', keyId: 'key-cfo' }],
            }),
          ).rejects.toMatchObject({ cause: { type: ErrorName.notAwaitingApproval } });
          lateAnswered.resolve();
        },
      );
      expect(result).toMatchObject({ status: IntentStatus.confirmed });
      expect(calls.filter((call) => call === 'decideApproval')).toHaveLength(2);
    });
  });

  it('refuses a decision that waited for a review the run ended without', async () => {
    const started = deferred<WorkflowHandle>();
    const sentEarly = deferred<WorkflowUpdateHandle<ReviewOutcome>>();
    const fail = { action: 'fail', reason: 'too early' } as const;
    const { result, calls } = await runIntent(
      {
        confirm: async () => {
          const handle = await started.promise;
          sentEarly.resolve(
            await handle.startUpdate(resolveReviewUpdate, {
              args: [{ decision: fail, actor: 'op' }],
              waitForStage: WorkflowUpdateStage.ACCEPTED,
            }),
          );
          return { state: 'confirmed', blockNumber: '7', ageMs: 1 };
        },
      },
      {},
      async (handle) => {
        started.resolve(handle);
        const early = await sentEarly.promise;
        await expect(early.result()).rejects.toMatchObject({
          cause: { type: ErrorName.notInReview, message: expect.stringMatching(/is confirmed/) },
        });
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.confirmed });
    expect(calls).not.toContain('resolveReview');
  });

  it('refuses a decision sent while the run is not on its way to review once 30 s have passed', async () => {
    let refused = false;
    const { result } = await runIntent(
      {
        confirm: async () =>
          refused
            ? { state: 'confirmed', blockNumber: '7', ageMs: 1 }
            : { state: 'pending', confirmations: 0, retryAfterMs: 10_000 },
      },
      {},
      async (handle) => {
        await untilStatus(handle, IntentStatus.confirming);
        const early = await handle.startUpdate(resolveReviewUpdate, {
          args: [{ decision: { action: 'fail', reason: 'stale' }, actor: 'op' }],
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        });
        await env.sleep(31_000);
        await expect(early.result()).rejects.toMatchObject({
          cause: { type: ErrorName.notInReview },
        });
        refused = true;
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.confirmed });
  });

  it('a decision that waited for the review goes before the lane rule the confirmation timeout starts at once', async () => {
    const started = deferred<WorkflowHandle>();
    const sentEarly = deferred<WorkflowUpdateHandle<ReviewOutcome>>();
    const confirm = { action: 'confirm', txHash: `0x${'7'.repeat(64)}` } as const;
    const { result, calls } = await runIntent(
      (defaults) => ({
        confirm: async () => ({ state: 'pending', confirmations: 0, retryAfterMs: 60_000 }),
        // The timeout's close writes needs_review; the decision sent then waits for the review.
        closeIntent: async (parameters) => {
          const closed = await defaults.closeIntent(parameters);
          sentEarly.resolve(
            await (
              await started.promise
            ).startUpdate(resolveReviewUpdate, {
              args: [{ decision: confirm, actor: 'op' }],
              waitForStage: WorkflowUpdateStage.ACCEPTED,
            }),
          );
          return closed;
        },
        freeAbandonedLane: async () => reviewOutcome('cancel'),
      }),
      { confirmTimeoutMs: 5 * 60_000 },
      async (handle) => {
        started.resolve(handle);
        await env.sleep(6 * 60_000);
        await expect((await sentEarly.promise).result()).resolves.toMatchObject({
          status: IntentStatus.confirmed,
        });
      },
    );
    expect(result).toMatchObject({ status: IntentStatus.confirmed });
    expect(calls).toContain('resolveReview');
    expect(calls).not.toContain('freeAbandonedLane');
  });

  it('closes the intent when the workflow is cancelled while it waits for a permit', async () => {
    const { result, calls } = await runIntent(
      {
        tryAcquirePermit: async () => ({ granted: false, reason: 'busy', retryAfterMs: 10_000 }),
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

  it('fails a token transfer that moved nothing, with the reason the look gives', async () => {
    const { result } = await runIntent({
      confirm: async () => ({
        state: 'moved-nothing',
        blockNumber: '3',
        ageMs: 1,
        reason: 'TokenMovedNothing: the token moved no funds',
      }),
    });
    expect(result).toMatchObject({
      status: IntentStatus.failed,
      reason: 'TokenMovedNothing: the token moved no funds',
    });
  });

  it('waits in review when a token delivered other than the amount; an operator confirms it', async () => {
    let inReview: PaymentIntentProgress | undefined;
    const { result, calls } = await runIntent(
      {
        confirm: async () => ({
          state: 'mismatch',
          blockNumber: '4',
          ageMs: 1,
          reason: 'TokenShortfall: the token delivered 99 of 100 base units',
        }),
      },
      {},
      async (handle) => {
        inReview = await untilInReview(handle);
        await handle.executeUpdate(resolveReviewUpdate, {
          args: [{ decision: { action: 'confirm', txHash: '0xabc' }, actor: 'op' }],
        });
      },
    );
    expect(inReview?.reason).toBe('TokenShortfall: the token delivered 99 of 100 base units');
    expect(result).toMatchObject({ status: IntentStatus.confirmed });
    expect(calls).toContain('resolveReview');
    expect(calls).not.toContain('closeIntent');
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

import type { WorkflowHandle } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { BatchMode } from '../../../domain/batch';
import { permitReleaseTaskQueue } from '../../../domain/task-queues';
import { waitFor } from '../../harness/stack/wait-for';
import { createRelayerWorker } from '../../../workers/relayer-worker';
import {
  batchProgressQuery,
  cancelBatchSignal,
  intentProgressQuery,
  type paymentBatch,
  type PaymentBatchInput,
} from '../../../workflows';
import { paymentIntentWorkflowId } from '../../../domain/workflow-ids';
import { intentWorkflow } from '../../../client/intent-workflows';
import { batchSubmitterKey, fakeBatch, type FakeItem } from '../../harness/fake-batch';
import { decideApprovalUpdate } from '../../../workflows/payment-intent/messages';
import { useDevServerClient } from '../../harness/dev-server-client';

/**
 * On the shared dev server in real time, durations in milliseconds: not on the time-skipping test
 * server, whose time lock leaks when a workflow ends with an activity outstanding
 * (temporalio/sdk-java#1138) and which skips no time for children of a run that continued as new
 * (#1540). Batches do both: their cancel stalled one test in six there, and every later test with it.
 */
const devServer = useDevServerClient();

/**
 * What a test that did not finish (timed out) left running: its batch is terminated, so that no
 * call of the client still waits on it, and its worker shut down, before the next test or the
 * server's teardown.
 */
const unfinished = new Set<() => Promise<void>>();
afterEach(async () => {
  for (const cleanUp of unfinished) await cleanUp();
  unfinished.clear();
});

/** A permit refusal's timer: short, so permit waits take real time but little of it. */
const permitRetryMs = 100;

/** Runs a batch of fake items through the real workers and workflows. */
async function runBatch(
  items: FakeItem[],
  input: Partial<PaymentBatchInput> = {},
  meanwhile?: (
    handle: WorkflowHandle<typeof paymentBatch>,
    batch: ReturnType<typeof fakeBatch>,
  ) => Promise<void>,
) {
  const taskQueue = `batch-${randomUUID()}`;
  const batch = fakeBatch(
    items,
    permitReleaseTaskQueue(taskQueue, 'test'),
    permitRetryMs,
    (id, turn) => intentWorkflow(devServer.client(), id).tellWalletTurn(turn),
  );
  const worker = await createRelayerWorker({
    connection: devServer.connection(),
    namespace: 'default',
    taskQueue,
    processId: 'test',
    activities: batch.activities,
    poolWidth: 20,
    throttleWaiters: 50,
    drainTimeoutMs: 1000,
  });
  const running = worker.run();
  let started: WorkflowHandle<typeof paymentBatch> | undefined;
  const cleanUp = async () => {
    await started?.terminate('test ended').catch(() => undefined);
    await worker.shutdown();
    await running;
  };
  unfinished.add(cleanUp);
  try {
    const handle = await devServer.client().workflow.start<typeof paymentBatch>('paymentBatch', {
      taskQueue,
      workflowId: `batch-${randomUUID()}`,
      args: [
        {
          batchId: 'b1',
          itemCount: items.length,
          concurrency: 4,
          mode: BatchMode.collectAll,
          ...input,
        },
      ],
    });
    started = handle;
    await meanwhile?.(handle, batch);
    const result = await handle.result();
    return { result, batch, handle };
  } finally {
    unfinished.delete(cleanUp);
    await worker.shutdown();
    await running;
  }
}

const wallets = ['w0', 'w1', 'w2'];

describe('paymentBatch workflow (dev server, activities faked)', () => {
  it('answers results[i] for item i whatever the completion order; one wallet signs in input order', async () => {
    // Earlier items take longer to confirm, so they end after later ones.
    const items = Array.from({ length: 12 }, (_, i) => ({
      wallet: wallets[i % 3]!,
      confirmAfterMs: (12 - i) * 150,
    }));
    const { result, batch } = await runBatch(items, { concurrency: 4 });
    expect(result.counts).toMatchObject({ confirmed: 12, failed: 0, skipped: 0 });
    expect(batch.results()).toEqual(Array(12).fill('confirmed'));
    expect(batch.endOrder()).not.toEqual([...batch.endOrder()].sort((a, b) => a - b));
    for (const [w, wallet] of wallets.entries()) {
      expect(batch.signedOrder(wallet)).toEqual([0, 1, 2, 3].map((k) => k * 3 + w));
    }
    expect(batch.maxActive()).toBe(4);
    expect(batch.finished()).toEqual({ status: 'completed', cause: null });
  });

  it("a wallet's turn stays with its unsigned item even when an earlier, signed item of it ends", async () => {
    // Item 0 is signed at once and ends after its first timer; item 1 waits three timers for a
    // permit. Item 2 must not sign when item 0 ends: it would take a nonce before item 1.
    // (Short timers fire about a second apart on the dev server.)
    const items: FakeItem[] = [
      { wallet: 'w0', confirmAfterMs: 100 },
      { wallet: 'w0', permitRefusals: 3 },
      { wallet: 'w0' },
    ];
    const { batch } = await runBatch(items, { concurrency: 3 });
    expect(batch.results()).toEqual(['confirmed', 'confirmed', 'confirmed']);
    expect(batch.signedOrder('w0')).toEqual([0, 1, 2]);
  });

  it('a batch awaiting approval starts nothing until one approval, not by the key that submitted it; then every item runs', async () => {
    const items: FakeItem[] = Array.from({ length: 6 }, (_, i) => ({ wallet: wallets[i % 3]! }));
    const decide = (handle: WorkflowHandle<typeof paymentBatch>, keyId: string) =>
      handle.executeUpdate(decideApprovalUpdate, {
        args: [{ decision: 'approve', actor: keyId, keyId }],
      });
    const { result, batch } = await runBatch(
      items,
      { awaitingApproval: true, timings: { approvalTtlMs: 60_000 } },
      async (handle, fake) => {
        await waitFor(
          async () => (await handle.describe()).historyLength > 3,
          'the batch waits',
          10_000,
        );
        expect(fake.results()).toEqual(Array(6).fill(null));
        await expect(decide(handle, batchSubmitterKey)).rejects.toMatchObject({
          cause: { type: 'ApprovalRefused' },
        });
        expect(fake.results()).toEqual(Array(6).fill(null));
        expect(await decide(handle, 'key-cfo')).toEqual({ status: 'running' });
        // Decided once: a second decision is refused before it reaches the history.
        await expect(decide(handle, 'key-other')).rejects.toMatchObject({
          cause: { type: 'NotAwaitingApproval' },
        });
      },
    );
    expect(result.counts).toMatchObject({ confirmed: 6, skipped: 0 });
    expect(batch.decisions()).toEqual(['approve', 'approve']);
    expect(batch.finished()).toEqual({ status: 'completed', cause: null });
  });

  it('a batch never approved is rejected at its approval TTL: nothing starts, every item skipped', async () => {
    const items: FakeItem[] = Array.from({ length: 4 }, (_, i) => ({ wallet: wallets[i % 3]! }));
    const { result, batch } = await runBatch(items, {
      awaitingApproval: true,
      timings: { approvalTtlMs: 500 },
    });
    expect(result).toMatchObject({
      stopCause: { code: 'approval_expired', text: 'rejected' },
      counts: { skipped: 4, confirmed: 0 },
    });
    expect(batch.decisions()).toEqual(['expire']);
    expect(batch.results()).toEqual(Array(4).fill('skipped'));
    expect(batch.finished()).toBeUndefined();
  });

  it('collect-all runs every item past a failure in the middle and reports each', async () => {
    const items: FakeItem[] = Array.from({ length: 9 }, (_, i) => ({ wallet: wallets[i % 3]! }));
    items[4] = { wallet: 'w1', fails: 'hold' };
    items[6] = { wallet: 'w0', fails: 'admission' };
    const { result, batch } = await runBatch(items, { concurrency: 3 });
    expect(batch.results()).toEqual([
      'confirmed',
      'confirmed',
      'confirmed',
      'confirmed',
      'failed',
      'confirmed',
      'rejected',
      'confirmed',
      'confirmed',
    ]);
    expect(result.counts).toMatchObject({ confirmed: 7, failed: 1, rejected: 1 });
    expect(batch.finished()?.status).toBe('completed');
  });

  it('an item waiting in needs_review counts as ended: the batch completes while it waits for a person', async () => {
    const items: FakeItem[] = Array.from({ length: 4 }, (_, i) => ({ wallet: wallets[i % 3]! }));
    items[1] = { wallet: 'w1', endsInReview: true };
    let waiting: { run: string; status: string } | undefined;
    const { result, batch } = await runBatch(items, { concurrency: 2 }, async (handle, batch) => {
      await handle.result();
      const child = devServer
        .client()
        .workflow.getHandle(paymentIntentWorkflowId(batch.intentIdOf(1)));
      waiting = {
        run: (await child.describe()).status.name,
        status: (await child.query(intentProgressQuery)).status,
      };
      // Deciding is the intent workflow's own test; here the child is only let go.
      await child.terminate('test over');
    });
    expect(batch.results()).toEqual(['confirmed', 'needs_review', 'confirmed', 'confirmed']);
    expect(result.counts).toMatchObject({ confirmed: 3, needs_review: 1 });
    expect(waiting).toEqual({ run: 'RUNNING', status: 'needs_review' });
  });

  it('fail-fast stops starting items at the first failure; running ones end safely, the rest are skipped', async () => {
    const items: FakeItem[] = Array.from({ length: 10 }, (_, i) => ({ wallet: wallets[i % 3]! }));
    // Items 3, 4 and 5 start as items 0, 1 and 2 end, at once. Item 3 fails after two permit
    // refusals, while 4 and 5 still wait for theirs (fifty): cancelled, nothing held or sent.
    items[3] = { wallet: 'w0', fails: 'hold', permitRefusals: 2 };
    items[4] = { wallet: 'w1', permitRefusals: 50 };
    items[5] = { wallet: 'w2', permitRefusals: 50 };
    const { result, batch } = await runBatch(items, { concurrency: 3, mode: BatchMode.failFast });
    expect(result.stopCause).toEqual({ code: 'item_failed', text: 'item 3 ended failed' });
    expect(batch.results()[3]).toBe('failed');
    expect(batch.results().slice(0, 6)).toEqual([
      'confirmed',
      'confirmed',
      'confirmed',
      'failed',
      'cancelled',
      'cancelled',
    ]);
    expect(batch.results().slice(6)).toEqual(Array(4).fill('skipped'));
    expect(result.counts).toEqual({
      confirmed: 3,
      failed: 1,
      needs_review: 0,
      cancelled: 2,
      rejected: 0,
      skipped: 4,
      expired: 0,
    });
    expect(batch.finished()).toEqual({
      status: 'stopped',
      cause: { code: 'item_failed', text: 'item 3 ended failed' },
    });
  });

  it('a cancel mid-batch reaches every running item: unsigned ones cancelled, signed ones followed to the end', async () => {
    const items: FakeItem[] = Array.from({ length: 12 }, (_, i) => ({
      wallet: wallets[i % 3]!,
      confirmAfterMs: 3000,
      // Every third item waits long (5 s) for a permit, so some are unsigned when the cancel comes.
      permitRefusals: i % 3 === 2 ? 50 : 0,
    }));
    const { result, batch } = await runBatch(items, { concurrency: 4 }, async (handle, batch) => {
      // Four running, the signed ones still waiting for their receipts.
      await waitFor(
        async () =>
          (await handle.query(batchProgressQuery)).running === 4 &&
          wallets.filter((wallet) => batch.signedOrder(wallet).length > 0).length === 2,
        'four items running, two of them signed',
        20_000,
      );
      await handle.signal(cancelBatchSignal, 'payroll withdrawn');
    });
    const outcomes = batch.results();
    expect(outcomes.every((outcome) => outcome !== null)).toBe(true);
    expect(outcomes.filter((o) => o === 'confirmed').length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o === 'cancelled').length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o === 'skipped').length).toBeGreaterThan(0);
    for (const [index, outcome] of outcomes.entries()) {
      // A cancelled item never reached a signature; a signed one was never cancelled.
      if (outcome === 'cancelled')
        expect(batch.signedOrder(items[index]!.wallet)).not.toContain(index);
      if (outcome === 'confirmed') expect(batch.intentStatus(index)).toBe('confirmed');
    }
    expect(result.stopCause).toEqual({
      code: 'cancelled_by_caller',
      text: 'cancelled: payroll withdrawn',
    });
    expect(batch.finished()?.status).toBe('cancelled');
  });

  it('continues as new every few items and still answers every item once', async () => {
    const items = Array.from({ length: 23 }, (_, i) => ({ wallet: wallets[i % 3]! }));
    const { result, batch, handle } = await runBatch(items, { concurrency: 3, itemsPerRun: 5 });
    expect(result.counts.confirmed).toBe(23);
    expect(batch.results()).toEqual(Array(23).fill('confirmed'));
    const description = await handle.describe();
    expect(description.runId).not.toBe(handle.firstExecutionRunId);
  });
});

import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { crashPoints, type CrashPoint } from '../../activities/failpoints';
import { orphanSweepScheduleId } from '../../client/orphan-sweep-schedule';
import { parseNewIntent } from '../../domain/intent-request';
import { newIntentId } from '../../operations/new-intent-id';
import { cancelIntent } from '../../service/cancel-intent';
import { getIntent, insertIntent } from '../../store/intents';
import { auditTrail } from '../../store/audit-log';
import { tenantBalance } from '../../store/ledger';
import { listAttempts } from '../../store/transaction-attempts';
import { cancelledOnChainReason, type Intent } from '../../domain/intent';
import { reviewIntent } from '../../service/review-intent';
import { waitFor } from '../../dev/stack/wait-for';
import { intentWaitingInReview } from '../support/intent-in-review';
import { expectBooksBalanced } from '../support/ledger-checks';
import { submitIntent } from '../../service/submit-intent';
import { submitBatch } from '../../service/submit-batch';
import { batchItems, findBatch } from '../../store/batches';
import { BatchMode } from '../../domain/batch';
import { CrashingWorkers } from '../support/crashing-workers';
import { registeredTestToken } from '../support/test-token';
import { faultSettings, seededRandom } from '../support/fault-settings';
import { expectInvariants } from '../support/invariants';
import { waitUntilSettled } from '../support/intents';
import { useTestWorld } from '../support/test-world';

const deposits = { acme: parseEther('100'), globex: parseEther('100'), thin: parseEther('0.0035') };
const suite = useTestWorld({
  proxy: true,
  wallets: 3,
  tenants: { acme: '100', globex: '100', thin: '0.0035' },
});

jest.setTimeout(600_000);

/** Points crossed in tests of their own. */
const ownTests = new Set<CrashPoint>(['after-review', 'after-lane-freed', 'after-webhook-sent']);

describe('SIGKILL between a side effect and its report, at every crash point in turn', () => {
  it('restarted workers finish every intent: each paid at most once, the books balance', async () => {
    const world = suite.world();
    const random = seededRandom('crash points');
    const taskQueue = `crash-${random.seed}`;
    // The n-th time a point is reached kills the worker: not always the first intent through it.
    // Closes are rare, and sweeps come by the clock (split between two short-lived workers): for
    // those the first time, or a run might end before they are reached.
    // An operator's decision and the lane rule have their own tests below (nothing goes to
    // review here), a webhook's in test/e2e/webhooks.test.ts.
    const plan = new Map<CrashPoint, number>(
      crashPoints
        .filter((point) => !ownTests.has(point))
        .map((point) => [
          point,
          point === 'after-close' || point === 'after-sweep' ? 1 : 1 + random.below(3),
        ]),
    );
    const workers = new CrashingWorkers(
      async (env) =>
        (
          await suite.spawnWorkers(1, {
            TASK_QUEUE: taskQueue,
            POOL_WIDTH: '8',
            THROTTLE_PER_SECOND: '50',
            THROTTLE_BURST: '20',
            // The fleet's sweep every 3 s: it finds the orphans below.
            ORPHAN_SWEEP_MS: '3000',
            ...env,
          })
        )[0]!,
      plan,
      2,
    );
    await workers.start();

    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    const client = new Client({ connection });
    const deps = { database: world.database, client, taskQueue };
    const accepted: string[] = [];
    let batchNonces: { from: string; intentId: string }[] = [];
    // One payment in four is of a token (6 decimals), so every point is crossed by both kinds.
    const tusd = await registeredTestToken(world, {
      alias: 'TUSD',
      decimals: 6,
      tenants: { acme: 1000n, globex: 1000n },
    });
    const payment = (tenantId: string, i: number) => ({
      tenantId,
      chainId: world.anvil.chainId,
      from: world.wallets[i % world.wallets.length]!,
      to: privateKeyToAccount(generatePrivateKey()).address,
      ...(i % 4 === 3 && tenantId !== 'thin'
        ? { asset: tusd.alias, amount: '1500000' }
        : { amount: parseEther('0.001').toString() }),
    });
    const pay = (tenantId: string, i: number) =>
      submitIntent(deps, payment(tenantId, i)).then(
        ({ intent }) => (accepted.push(intent.id), intent.id),
      );
    // Admitted, but the process died before starting their workflows: the sweep's to find.
    const orphan = async (i: number) => {
      const { intent } = await insertIntent(
        world.database.kysely,
        newIntentId(),
        parseNewIntent(payment('acme', i)),
        new Date(),
      );
      accepted.push(intent.id);
    };
    try {
      // A tenant that can pay for 3 of 6 at once: the rest fail at the hold (or at admission).
      await Promise.allSettled([0, 1, 2, 3, 4, 5].map((i) => pay('thin', i)));
      // A batch whose items of each wallet hand their turns on through the kills.
      const { batch } = await submitBatch(
        deps,
        'acme',
        {
          mode: BatchMode.collectAll,
          concurrency: 6,
          items: Array.from({ length: 12 }, (_, i) => parseNewIntent(payment('acme', i))),
        },
        `crash-${random.seed}`,
      );
      // Waves while the workers die and come back; one intent in ten cancelled by its tenant.
      for (let wave = 0; wave * 10 < faultSettings.intents; wave++) {
        const ids = await Promise.all(
          Array.from({ length: 10 }, (_, i) => pay(i % 2 ? 'acme' : 'globex', wave * 10 + i)),
        );
        await cancelIntent(
          deps,
          { role: 'tenant', tenantId: 'globex', keyId: 'test', label: 'test' },
          ids[0]!,
        ).catch(() => undefined); // already signed: it goes on to be confirmed
        if (wave % 4 === 0) await orphan(wave);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      await waitFor(
        async () =>
          (await findBatch(world.database.kysely, { id: batch.id }))?.status !== 'running',
        'the batch to end',
        400_000,
      );
      const items = await batchItems(world.database.kysely, batch.id, 0, 12);
      batchNonces = items.map((item) => ({ from: item.from!, intentId: item.intentId! }));
      accepted.push(...batchNonces.map((item) => item.intentId));
      await waitUntilSettled(world, accepted.length, 400_000);
    } finally {
      await workers.stop();
      await client.schedule
        .getHandle(orphanSweepScheduleId(taskQueue))
        .delete()
        .catch(() => undefined);
      await connection.close();
    }

    console.log(
      `crash points: ${workers.crashes.map((c) => `${c.point} at ${c.at} ms`).join(', ')}`,
    );
    expect(workers.unexpectedExits).toEqual([]);
    expect(workers.unreached).toEqual([]);
    await expectInvariants({
      world,
      deposits: { ...deposits, ...tusd.deposits },
      accepted,
      proxy: world.proxy,
    });
    const rows = await world.database.kysely
      .selectFrom('intents')
      .select(['id', 'status', 'nonce'])
      .execute();
    const statuses = new Set(rows.map((row) => row.status));
    for (const status of statuses) expect(['confirmed', 'failed', 'cancelled']).toContain(status);
    // The batch's items of each wallet took their nonces in input order, whoever died when.
    const nonceOf = new Map(rows.map((row) => [row.id, row.nonce]));
    for (const wallet of new Set(batchNonces.map((item) => item.from))) {
      const nonces = batchNonces
        .filter((item) => item.from === wallet)
        .map((item) => nonceOf.get(item.intentId)!);
      expect(nonces).toEqual([...nonces].sort((a, b) => a - b));
    }
  });

  /**
   * A worker that dies right after a cancel is stored (`point`), for an intent whose transaction
   * waits in the node's pool until its confirmation timeout (automine off); `cancel` brings the
   * cancel about. The next worker applies it once: one cancel sent and mined, the intent failed,
   * its hold released.
   */
  async function cancelledOnceThroughACrash(
    point: 'after-review' | 'after-lane-freed',
    wallet: number,
    cancel: (context: {
      deps: Parameters<typeof reviewIntent>[0];
      intent: Intent;
    }) => Promise<() => Promise<void>>,
  ): Promise<void> {
    const world = suite.world();
    const taskQueue = `crash-${point}-${seededRandom(point).seed}`;
    const [dying] = await suite.spawnWorkers(1, { TASK_QUEUE: taskQueue, CRASH_AT: point });
    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    const client = new Client({ connection });
    const deps = { database: world.database, client, taskQueue, chains: world.chains };
    try {
      const { intent, handle } = await intentWaitingInReview(
        world,
        deps,
        parseNewIntent({
          tenantId: 'acme',
          chainId: world.anvil.chainId,
          from: world.wallets[wallet]!,
          to: privateKeyToAccount(generatePrivateKey()).address,
          amount: parseEther('0.25').toString(),
        }),
        1500,
      );
      const heldBefore = (await tenantBalance(world.database.kysely, 'acme'))!.held;
      const afterRestart = await cancel({ deps, intent });
      expect(await dying!.exited).toBeDefined();
      const [worker] = await suite.spawnWorkers(1, { TASK_QUEUE: taskQueue });
      // The step's next try (after its timeout) finds the cancel stored and signs nothing more.
      await afterRestart();
      await waitFor(
        async () => (await getIntent(world.database.kysely, intent.id)).status === 'confirming',
        'the cancel to be sent',
        60_000,
      );
      await world.testClient.mine({ blocks: 1 });
      expect((await handle.result()).status).toBe('failed');
      const ended = await getIntent(world.database.kysely, intent.id);
      expect(ended.reason).toBe(cancelledOnChainReason);
      const attempts = await listAttempts(world.database.kysely, intent.id);
      expect(attempts.map((attempt) => attempt.cause)).toEqual(['first', 'cancel']);
      expect(ended.txHash).toBe(attempts[1]!.txHash);
      const trail = await auditTrail(world.database.kysely, intent.id);
      expect(trail.filter((entry) => entry.action === 'cancel_signed')).toHaveLength(1);
      expect(await world.testClient.getBalance({ address: intent.to })).toBe(0n);
      const heldAfter = (await tenantBalance(world.database.kysely, 'acme'))!.held;
      expect(heldBefore - heldAfter).toBe(parseEther('0.25'));
      await expectBooksBalanced(world.database);
      worker!.signal('SIGTERM');
      await worker!.exited;
    } finally {
      await world.testClient.setAutomine(true);
      await connection.close();
    }
  }

  it("an operator's cancel stored just before the worker died is applied once, sent and mined", () =>
    cancelledOnceThroughACrash('after-review', 2, async ({ deps, intent }) => {
      const operator = { role: 'operator' as const, keyId: 'test', label: 'test' };
      const decided = reviewIntent(deps, operator, intent.id, { action: 'cancel' });
      return async () => expect((await decided).status).toBe('signed');
    }));

  it("the lane rule's cancel stored just before the worker died is applied once, sent and mined", () =>
    cancelledOnceThroughACrash('after-lane-freed', 1, async ({ intent }) => {
      // The node loses it: one confirmation timeout later the rule finds it nowhere.
      await suite.world().testClient.dropTransaction({ hash: intent.txHash! });
      return async () => undefined;
    }));
});

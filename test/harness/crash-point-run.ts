import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { crashPoints, type CrashPoint } from '../../activities/failpoints';
import { orphanSweepScheduleId, topUpSweepScheduleId } from '../../client/sweep-schedules';
import { operatorOwner } from '../../domain/custody';
import { BatchMode } from '../../domain/batch';
import { parseNewIntent } from '../../domain/intent-request';
import { waitFor } from './stack/wait-for';
import { newIntentId } from '../../operations/new-id';
import { cancelIntent } from '../../service/cancel-intent';
import { submitBatch } from '../../service/submit-batch';
import { submitIntent } from '../../service/submit-intent';
import { findBatch } from '../../store/batches';
import { batchItems } from '../../store/batch-items';
import { insertIntent } from '../../store/intents';
import { CrashingWorkers, type CrashSharing } from './crashing-workers';
import { seededRandom, type FaultSettings } from './fault-settings';
import { expectInvariants } from './invariants';
import { waitUntilSettled } from './intents';
import { registeredTestToken } from './test-token';
import type { WorldInTest } from './test-world';
import {
  batchTenant,
  deposits,
  openIntents,
  topUpSettings,
  walletStartWei,
  walletsLowOrTopUpsOpen,
} from './crash-point-world';

export { crashPointWorld } from './crash-point-world';

/** Rounds of driving the points the waves left unreached, each a wave of its own. */
const drives = 6;

/** Points crossed in tests of their own. */
const ownTests = new Set<CrashPoint>([
  'after-review',
  'after-lane-freed',
  'after-webhook-sent',
  'after-approval',
  'after-unmined-cancel',
  'after-speed-up',
  'after-allow-upgrade',
  'after-occurrence-admitted',
  // test/faults/deposit-crash-points.test.ts
  'after-deposit-detected',
  'after-deposit-credited',
  'after-deposit-sweep-admitted',
  // test/e2e/delayed-webhooks.test.ts
  'after-delayed-notice',
]);

/**
 * Intents in waves while workers die at every crash point in turn: two processes at a time
 * carrying the plan as `sharing` says, each killed one replaced. Deep, each point at a seeded
 * n-th time (1 to 3; closes, sweeps and lease moves, which come rarely or by the clock, the
 * first time); quick, the first time. A tenant that can pay for 3 of 6 at once, one intent in ten
 * cancelled by its tenant, a few left orphaned for the fleet's sweep, batches of 12 over three
 * wallets. `settings.intents` intents in waves of ten; then each point still unreached is driven
 * there (a batch, an orphan, the lease holder killed, a wave of twenty) at most `drives` times.
 * Then every intent ends, I1–I4 hold, and each batch's items took their nonces in input order per
 * wallet, whoever died when.
 */
export async function crashPointRun(
  world: WorldInTest,
  settings: FaultSettings,
  sharing: CrashSharing,
): Promise<void> {
  const random = seededRandom('crash points', settings);
  const taskQueue = `crash-${settings.depth}-${random.seed}`;
  const plan = new Map<CrashPoint, number>(
    crashPoints
      .filter((point) => !ownTests.has(point))
      .map((point) => [
        point,
        settings.depth === 'quick' ||
        point === 'after-close' ||
        point === 'after-sweep' ||
        point === 'after-lease-moved'
          ? 1
          : 1 + random.below(3),
      ]),
  );
  const topUps = topUpSettings(world);
  for (const address of world.wallets) {
    await world.testClient.setBalance({ address, value: walletStartWei });
  }
  const workers = new CrashingWorkers(
    async (env) =>
      (
        await world.spawnWorkers(1, {
          TASK_QUEUE: taskQueue,
          POOL_WIDTH: '8',
          // A wave of ten outruns the burst: some of each wave wait on slots in the permit line
          // (`after-reservation`), the rest go at once.
          THROTTLE_PER_SECOND: '20',
          THROTTLE_BURST: '4',
          // The in-flight bound is the fleet's (Redis): a killed process's permits come back
          // after this, not the minute a production send may need.
          PERMIT_TTL_MS: '10000',
          // The fleet's sweep every 3 s: it finds the orphans below.
          ORPHAN_SWEEP_MS: '3000',
          ...topUps.env,
          ...env,
        })
      )[0]!,
    plan,
    2,
    sharing,
  );
  await workers.start();

  const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
  const client = new Client({ connection });
  const deps = { database: world.database, client, taskQueue };
  const accepted: string[] = [];
  const batchIds: string[] = [];
  // One payment in four is of a token (6 decimals), so every point is crossed by both kinds.
  const tusd = await registeredTestToken(world, {
    alias: 'TUSD',
    decimals: 6,
    tenants: { acme: 1000n, globex: 1000n, [batchTenant]: 1000n },
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
  // Admitted, but the process died before starting their workflows: the sweep's to find. Native
  // (index 4i): admission resolves a token's alias to its address, and this row skips admission.
  const orphan = async (i: number) => {
    const { intent } = await insertIntent(
      world.database.kysely,
      newIntentId(),
      parseNewIntent(payment('acme', 4 * i)),
      new Date(),
    );
    accepted.push(intent.id);
  };
  try {
    // A tenant that can pay for 3 of 6 at once: the rest fail at the hold (or at admission).
    await Promise.allSettled([0, 1, 2, 3, 4, 5].map((i) => pay('thin', i)));
    // Batches whose items of each wallet hand their turns on through the kills.
    const batchRunning = async () =>
      (await findBatch(world.database.kysely, { id: batchIds.at(-1)! }))?.status === 'running';
    const startBatch = async () => {
      const { batch } = await submitBatch(
        deps,
        batchTenant,
        {
          mode: BatchMode.collectAll,
          concurrency: 6,
          items: Array.from({ length: 12 }, (_, i) => parseNewIntent(payment(batchTenant, i))),
        },
        `crash-${settings.depth}-${random.seed}-${batchIds.length}`,
      );
      batchIds.push(batch.id);
    };
    await startBatch();
    // Waves while the workers die and come back; one intent in ten cancelled by its tenant (it
    // closes), an orphan every fourth wave. A wave past the first few waits for the open intents
    // to fall under 20: unpaced, the points behind a backlog (batch turns, top-ups) came later.
    let wave = 0;
    const payWave = async (size: number) => {
      if (wave >= 4) {
        await waitFor(
          async () => (await openIntents(world)) < 20,
          'the open intents to fall under 20 before another wave',
          400_000,
        );
      }
      const ids = await Promise.all(
        Array.from({ length: size }, (_, i) => pay(i % 2 ? 'acme' : 'globex', wave * 20 + i)),
      );
      await cancelIntent(
        deps,
        { role: 'tenant', tenantId: 'globex', keyId: 'test', label: 'test' },
        ids[0]!,
      ).catch(() => undefined); // already signed: it goes on to be confirmed
      if (wave % 4 === 0) await orphan(wave);
      wave += 1;
    };
    for (let i = 0; i < Math.ceil(settings.intents / 10); i++) {
      await payWave(10);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // Then each point not yet reached is driven there, a bounded number of times: the run's
    // length is a count of intents, not a wait that grows on a loaded machine.
    let drive = 0;
    for (; drive < drives && workers.unreached.length > 0; drive++) {
      const unreached = workers.unreached;
      if (unreached.includes('after-turn-passed') && !(await batchRunning())) {
        await startBatch();
      }
      if (unreached.includes('after-sweep')) await orphan(wave);
      // The lease holder killed: another process takes its lease.
      if (unreached.includes('after-lease-moved')) await workers.killOldest();
      // The rest lie on a payment's way; twenty at once outrun the permit line's burst of four
      // (after-reservation), and dip a wallet below its mark (after-top-up-admitted).
      await payWave(20);
      await waitFor(
        async () => (await openIntents(world)) === 0 || workers.unreached.length === 0,
        'the driven wave to end',
        400_000,
      );
    }
    console.log(`crash points: ${wave} waves, ${drive} of them driving unreached points`);
    await waitFor(async () => !(await batchRunning()), 'the last batch to end', 400_000);
    for (const batchId of batchIds) {
      const items = await batchItems(world.database.kysely, batchId, 0, 12);
      accepted.push(...items.map((item) => item.intentId!));
    }
    await waitUntilSettled(world, accepted.length, 400_000);
    // Payments over, the last dips get their top-ups: then no sweep can start another.
    await waitFor(
      async () => (await walletsLowOrTopUpsOpen(world)) === 0,
      'every wallet topped up above its mark and every top-up ended',
      400_000,
    );
  } finally {
    await workers.stop();
    for (const scheduleId of [
      orphanSweepScheduleId(taskQueue),
      topUpSweepScheduleId(taskQueue, world.anvil.chainId),
    ]) {
      await client.schedule
        .getHandle(scheduleId)
        .delete()
        .catch(() => undefined);
    }
    await connection.close();
  }
  const topUpCount = (
    await world.database.kysely
      .selectFrom('intents')
      .select('id')
      .where('tenant_id', '=', operatorOwner)
      .where('status', '=', 'confirmed')
      .execute()
  ).length;
  console.log(`crash points: ${topUpCount} top-ups confirmed`);
  expect(topUpCount).toBeGreaterThan(0);

  console.log(`crash points: ${workers.crashes.map((c) => `${c.point} at ${c.at} ms`).join(', ')}`);
  expect(workers.unexpectedExits).toEqual([]);
  expect(workers.unreached).toEqual([]);
  await expectInvariants({
    world,
    deposits: { ...deposits, ...tusd.deposits },
    accepted,
    wallets: [...world.wallets, topUps.treasury],
    proxy: world.proxy,
  });
  const rows = await world.database.kysely
    .selectFrom('intents')
    .select(['id', 'status', 'nonce'])
    .execute();
  const statuses = new Set(rows.map((row) => row.status));
  for (const status of statuses) expect(['confirmed', 'failed', 'cancelled']).toContain(status);
  // Each batch's items of each wallet took their nonces in input order, whoever died when.
  const nonceOf = new Map(rows.map((row) => [row.id, row.nonce]));
  for (const batchId of batchIds) {
    const items = await batchItems(world.database.kysely, batchId, 0, 12);
    for (const wallet of new Set(items.map((item) => item.from))) {
      const nonces = items
        .filter((item) => item.from === wallet)
        .map((item) => nonceOf.get(item.intentId!)!);
      expect({ batchId, wallet, nonces }).toEqual({
        batchId,
        wallet,
        nonces: [...nonces].sort((a, b) => a - b),
      });
    }
  }
}

import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { crashPoints, type CrashPoint } from '../../activities/failpoints';
import { orphanSweepScheduleId, topUpSweepScheduleId } from '../../client/sweep-schedules';
import { operatorOwner } from '../../domain/custody';
import { BatchMode } from '../../domain/batch';
import { terminalStatuses } from '../../domain/intent';
import { parseNewIntent } from '../../domain/intent-request';
import { waitFor } from './stack/wait-for';
import { newIntentId } from '../../operations/new-intent-id';
import { cancelIntent } from '../../service/cancel-intent';
import { submitBatch } from '../../service/submit-batch';
import { submitIntent } from '../../service/submit-intent';
import { batchItems, findBatch } from '../../store/batches';
import { insertIntent } from '../../store/intents';
import { openTopUps } from '../../store/top-ups';
import { CrashingWorkers, type CrashSharing } from './crashing-workers';
import { seededRandom, type FaultSettings } from './fault-settings';
import { expectInvariants } from './invariants';
import { waitUntilSettled } from './intents';
import { registeredTestToken } from './test-token';
import type { useTestWorld } from './test-world';

/**
 * The world a crash-point run needs: a proxy, Redis (the quota's line and the chain's reader are
 * shared by the two processes, as in a fleet), three wallets, and these tenants.
 */
export const crashPointWorld = {
  proxy: true,
  redis: true,
  wallets: 3,
  tenants: { acme: '100', globex: '100', thin: '0.0035', initech: '100' },
};
const deposits = {
  acme: parseEther('100'),
  globex: parseEther('100'),
  thin: parseEther('0.0035'),
  initech: parseEther('100'),
};
/**
 * The batches' tenant, apart from the waves': a batch admits each item against the worker's
 * per-tenant open-intent limit (2), which a wave's tenant always has reached.
 */
const batchTenant = 'initech';

/**
 * The hot wallets start with 1 ETH and are topped up from a treasury (the world's next dev
 * account) whenever they dip below 0.995: a top-up every few waves per wallet, each crossing the
 * payment's crash points and the sweep's own (`after-top-up-admitted`).
 */
const walletStartWei = parseEther('1');
const topUpSettings = (world: ReturnType<ReturnType<typeof useTestWorld>['world']>) => {
  const treasuryKey = world.anvil.keys[world.wallets.length]!;
  return {
    treasury: privateKeyToAccount(treasuryKey).address,
    env: {
      HOT_WALLET_KEYS: [...world.walletKeys, treasuryKey].join(','),
      TREASURY_WALLET: privateKeyToAccount(treasuryKey).address,
      LOW_BALANCE_ETH: '0.995',
      TOP_UP_TARGET_ETH: '1',
      TREASURY_LOW_BALANCE_ETH: '1',
      TOP_UP_SWEEP_MS: '1000',
    },
  };
};
const lowMarkWei = parseEther('0.995');

/** Points crossed in tests of their own. */
const ownTests = new Set<CrashPoint>([
  'after-review',
  'after-lane-freed',
  'after-webhook-sent',
  'after-approval',
  'after-unmined-cancel',
  'after-allow-upgrade',
  'after-occurrence-admitted',
  // test/faults/deposit-crash-points.test.ts
  'after-deposit-detected',
  'after-deposit-credited',
  'after-deposit-sweep-admitted',
]);

/**
 * Intents in waves while workers die at every crash point in turn: two processes at a time
 * carrying the plan as `sharing` says, each killed one replaced. Deep, each point at a seeded
 * n-th time (1 to 3; closes, sweeps and lease moves, which come rarely or by the clock, the
 * first time);
 * quick, the first time. A tenant that can pay for 3 of 6 at once, one intent in ten cancelled by
 * its tenant, a few left orphaned for the fleet's sweep, batches of 12 over three wallets (another
 * while no batch item has yet died passing its turn on). Waves go on until every point was
 * reached (at least `settings.intents` intents); then every intent ends, I1–I4 hold, and each
 * batch's items took their nonces in input order per wallet, whoever died when.
 */
export async function crashPointRun(
  suite: ReturnType<typeof useTestWorld>,
  settings: FaultSettings,
  sharing: CrashSharing,
): Promise<void> {
  const world = suite.world();
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
        await suite.spawnWorkers(1, {
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
    // Waves while the workers die and come back; one intent in ten cancelled by its tenant. The
    // waves go on while a point waits to be reached: for four times as many intents, or for
    // three minutes, whichever is more (each replacement takes seconds to start on a loaded
    // machine, and a point's intent must come while a process carries it). A wave past the
    // first few waits for the open intents to fall under two waves' worth: unpaced, the waits
    // submitted thousands, and the points behind a backlog (batch turns, top-ups) came later.
    const leastWaves = Math.ceil(settings.intents / 10);
    const wavesUntil = Date.now() + 180_000;
    const moreWanted = (wave: number) =>
      workers.unreached.length > 0 && (wave < 4 * leastWaves || Date.now() < wavesUntil);
    for (let wave = 0; wave < leastWaves || moreWanted(wave); wave++) {
      if (wave >= leastWaves) {
        await waitFor(
          async () => (await openIntents(world)) < 20,
          'the open intents to fall under 20 before another wave',
          400_000,
        );
      }
      if (workers.unreached.includes('after-turn-passed') && !(await batchRunning())) {
        await startBatch();
      }
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

/** Intents of any owner not yet ended. */
async function openIntents(
  world: ReturnType<ReturnType<typeof useTestWorld>['world']>,
): Promise<number> {
  const rows = await world.database.kysely
    .selectFrom('intents')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('status', 'not in', [...terminalStatuses])
    .executeTakeFirstOrThrow();
  return Number(rows.count);
}

/** Hot wallets below the low mark plus top-ups not ended: 0 once the top-ups are done. */
async function walletsLowOrTopUpsOpen(
  world: ReturnType<ReturnType<typeof useTestWorld>['world']>,
): Promise<number> {
  const balances = await Promise.all(
    world.wallets.map((address) => world.testClient.getBalance({ address })),
  );
  const open = await openTopUps(world.database.kysely, world.anvil.chainId);
  return balances.filter((balance) => balance < lowMarkWei).length + open.length;
}

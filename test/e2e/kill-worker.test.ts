import { randomUUID } from 'node:crypto';
import { quotaLimiterId, Throttle } from '../../throttle/throttle';
import { waitFor } from '../harness/stack/wait-for';
import { minedTransactions } from '../harness/stack/chain-truth';
import { confirmedCount, submitMany, waitUntilSettled } from '../harness/intents';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

const world = useWorld({ proxy: true, redis: true });

describe('kill -9 of a worker process in the middle of a run', () => {
  it('every intent still ends confirmed exactly once, and no permit stays lost', async () => {
    const taskQueue = `kill-${randomUUID()}`;
    const quota = {
      maxInFlight: 3,
      perSecond: 50,
      burst: 10,
      maxWaitMs: 30_000,
      permitTtlMs: 3_000,
    };
    world.proxy!.holdResponses('eth_sendRawTransaction', 300);
    const workers = await world.spawnWorkers(3, {
      TASK_QUEUE: taskQueue,
      POOL_WIDTH: '4',
      THROTTLE_MAX_IN_FLIGHT: String(quota.maxInFlight),
      THROTTLE_PER_SECOND: String(quota.perSecond),
      THROTTLE_BURST: String(quota.burst),
      PERMIT_TTL_MS: String(quota.permitTtlMs),
    });
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });
    const submitted = await submitMany(world, taskQueue, 30);

    // Kill one process while sends are in flight, permits held, steps half done.
    await waitFor(
      async () =>
        (await confirmedCount(world)) >= 6 && world.proxy!.inFlight('eth_sendRawTransaction') > 0,
      'a send in flight after 6 confirmations',
    );
    workers[0]!.signal('SIGKILL');
    expect(await workers[0]!.exited).toBe('SIGKILL');

    await waitUntilSettled(world, 30, 150_000);
    const rows = await world.database.kysely
      .selectFrom('intents')
      .select(['id', 'status', 'tx_hash'])
      .execute();
    expect(rows.map((r) => r.status)).toEqual(Array(30).fill('confirmed'));
    const mined = await minedTransactions(world, startBlock);
    expect(mined).toHaveLength(30);
    expect(new Set(mined.map((tx) => tx.hash))).toEqual(new Set(rows.map((r) => r.tx_hash)));
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(submitted.map((s) => s.intent.id)));
    await expectBooksBalanced(world.database);

    // No permit stays lost: once the survivors are gone too, the whole quota can be taken again
    // within the permit TTL (the killed process's permits expire in Redis).
    for (const worker of workers.slice(1)) worker.signal('SIGTERM');
    await Promise.all(workers.slice(1).map((w) => w.exited));
    const probe = await Throttle.start(quota, {
      redisUrl: world.redis!.url,
      limiterId: quotaLimiterId(taskQueue, world.anvil.chainId),
    });
    try {
      const grants = await Promise.all([1, 2, 3].map((n) => probe.acquire(`probe-${n}`)));
      expect(grants.map((g) => g.granted)).toEqual([true, true, true]);
    } finally {
      await probe.close();
    }
  });
});

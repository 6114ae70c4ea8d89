import { randomUUID } from 'node:crypto';
import { maxConcurrent } from '../harness/stack/rpc-proxy';
import { stopSummary } from '../harness/stack/worker-process';
import { minedTransactions } from '../harness/stack/chain-truth';
import { submitMany, waitUntilSettled } from '../harness/intents';
import { useWorld } from '../harness/test-world';

const world = useWorld({ proxy: true });

describe('the in-flight limit', () => {
  it('30 intents on 8 activity slots with 3 permits: 30 transactions, never more than 3 sends at once', async () => {
    // Slow sends make overlap likely (even on a busy machine), so the limit is what keeps them at 3.
    world.proxy!.holdResponses('eth_sendRawTransaction', 400);
    const taskQueue = `in-flight-${randomUUID()}`;
    const [worker] = await world.spawnWorkers(1, {
      TASK_QUEUE: taskQueue,
      POOL_WIDTH: '8',
      THROTTLE_MAX_IN_FLIGHT: '3',
      THROTTLE_PER_SECOND: '1000',
      THROTTLE_BURST: '1000',
    });
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });
    await submitMany(world, taskQueue, 30);
    await waitUntilSettled(world, 30, 120_000);
    worker!.signal('SIGTERM');
    await worker!.exited;

    const sends = world.proxy!.callsOf('eth_sendRawTransaction');
    expect(sends).toHaveLength(30);
    // Never above the limit; reaching it shows the permits, not the pool, are what bind.
    expect(maxConcurrent(sends)).toBeLessThanOrEqual(3);
    expect(maxConcurrent(sends)).toBeGreaterThanOrEqual(2);
    const mined = await minedTransactions(world, startBlock);
    expect(new Set(mined.map((tx) => tx.hash)).size).toBe(30);
    const rows = await world.database.kysely
      .selectFrom('intents')
      .select(['status', 'tx_hash'])
      .execute();
    expect(rows.every((r) => r.status === 'confirmed')).toBe(true);
    expect(new Set(rows.map((r) => r.tx_hash))).toEqual(new Set(mined.map((tx) => tx.hash)));
    expect(stopSummary(worker!.output())).toMatchObject({ sent: 30, abandoned: 0, panics: 0 });
  });
});

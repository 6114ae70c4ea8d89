import { randomUUID } from 'node:crypto';
import type { Counter } from 'prom-client';
import { startRelayerProcess } from '../../workers/relayer-process';
import { submitMany, waitUntilSettled } from '../harness/intents';
import { useWorld } from '../harness/test-world';

const world = useWorld({ proxy: true });

describe('waiting never occupies a pool slot', () => {
  it('pool 2, 2 permits, 6 intents: all finish and no permit wait reaches its deadline', async () => {
    // The trap: if waiting for a permit took a pool slot, 2 waiters could fill the pool while the
    // 2 intents holding the permits wait for a slot to finish: stuck until the 20 s deadline.
    world.proxy!.holdResponses('eth_sendRawTransaction', 500);
    const taskQueue = `slots-${randomUUID()}`;
    const relayer = await startRelayerProcess(
      world.config({
        TASK_QUEUE: taskQueue,
        POOL_WIDTH: '2',
        THROTTLE_MAX_IN_FLIGHT: '2',
        THROTTLE_PER_SECOND: '1000',
        THROTTLE_BURST: '1000',
        THROTTLE_MAX_WAIT_MS: '20000',
      }),
    );
    try {
      const started = Date.now();
      await submitMany(world, taskQueue, 6);
      await waitUntilSettled(world, 6, 60_000);
      const elapsed = Date.now() - started;

      const rows = await world.database.kysely.selectFrom('intents').select('status').execute();
      expect(rows.map((r) => r.status)).toEqual(Array(6).fill('confirmed'));
      const refusals = (
        await (relayer.metrics.getSingleMetric('relayer_permit_refusals_total') as Counter).get()
      ).values;
      expect(refusals.filter((v) => v.labels.reason === 'timeout')).toEqual([]);
      // Three rounds of two half-second sends, far below one 20 s deadline.
      expect(elapsed).toBeLessThan(20_000);
      expect(world.proxy!.callsOf('eth_sendRawTransaction')).toHaveLength(6);
    } finally {
      await relayer.stop();
    }
  });
});

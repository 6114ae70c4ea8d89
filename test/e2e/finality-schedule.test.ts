import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { finalitySweepScheduleId } from '../../client/sweep-schedules';
import { waitFor } from '../harness/stack/wait-for';
import { getIntent } from '../../store/intents';
import { useWorld } from '../harness/test-world';

jest.setTimeout(120_000);

const world = useWorld({ tenants: { acme: '10' } });

describe('the finality sweep runs on its Schedule', () => {
  it("a worker ensures the fleet's Schedule, and its runs mark a confirmed intent final once its block is deep enough", async () => {
    const taskQueue = world.env().TASK_QUEUE!;
    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    const schedule = new Client({ connection }).schedule.getHandle(
      finalitySweepScheduleId(taskQueue),
    );
    try {
      await world.spawnWorkers(1, { FINALITY: '2', FINALITY_SWEEP_MS: '1000' });
      const intent = await world.pay({ amount: parseEther('0.1').toString() });
      expect(intent.status).toBe('confirmed');
      // Its block is the head: not final at depth 2 (the final block is the head's minus 2) until
      // two more blocks bury it.
      const runsBefore = (await schedule.describe()).info.recentActions.length;
      await waitFor(
        async () => (await schedule.describe()).info.recentActions.length > runsBefore + 1,
        'two more sweeps by the Schedule',
        30_000,
      );
      expect((await getIntent(world.database.kysely, intent.id)).finalizedAt).toBeNull();
      await world.testClient.mine({ blocks: 2 });
      await waitFor(
        async () => (await getIntent(world.database.kysely, intent.id)).finalizedAt !== null,
        'the intent marked final by a scheduled sweep',
        30_000,
      );
      const { action } = await schedule.describe();
      expect(action).toMatchObject({ workflowType: 'finalitySweep', taskQueue });
    } finally {
      await schedule.delete().catch(() => undefined);
      await connection.close();
    }
  });
});

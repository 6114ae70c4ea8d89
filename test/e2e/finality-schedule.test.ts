import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { finalitySweepScheduleId } from '../../client/sweep-schedules';
import { waitFor } from '../harness/stack/wait-for';
import { submitIntent } from '../../service/submit-intent';
import { getIntent } from '../../store/intents';
import { useTestWorld } from '../harness/test-world';

jest.setTimeout(120_000);

const suite = useTestWorld({ tenants: { acme: '10' } });

describe('the finality sweep runs on its Schedule', () => {
  it("a worker ensures the fleet's Schedule, and its runs mark a confirmed intent final once its block is deep enough", async () => {
    const world = suite.world();
    const taskQueue = `finality-${randomUUID()}`;
    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    const client = new Client({ connection });
    const schedule = client.schedule.getHandle(finalitySweepScheduleId(taskQueue));
    try {
      await suite.spawnWorkers(1, {
        TASK_QUEUE: taskQueue,
        FINALITY: '2',
        FINALITY_SWEEP_MS: '1000',
      });
      const { intent, workflowId } = await submitIntent(
        { database: world.database, client, taskQueue },
        {
          tenantId: 'acme',
          chainId: world.anvil.chainId,
          to: privateKeyToAccount(generatePrivateKey()).address,
          amount: parseEther('0.1').toString(),
        },
      );
      expect((await client.workflow.getHandle(workflowId).result()).status).toBe('confirmed');
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

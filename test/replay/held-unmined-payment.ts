import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { parseEther } from 'viem';
import { parseNewIntent } from '../../domain/intent-request';
import { startRelayerProcess } from '../../workers/relayer-process';
import { intentHeldUnmined } from '../harness/intent-in-review';
import { startTestWorld, type TestWorld } from '../harness/test-world';

/**
 * A recorder's world: a relayer on `taskQueue` and one payment of acme's that the node holds
 * unmined (automine off) while its confirmation looks go on. `record` runs with it; automine,
 * the relayer and the world are stopped after, whatever happened.
 */
export async function withHeldUnminedPayment(
  server: TestWorkflowEnvironment,
  taskQueue: string,
  record: (
    held: Awaited<ReturnType<typeof intentHeldUnmined>> & {
      world: TestWorld;
      client: Client;
    },
  ) => Promise<void>,
): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const client = new Client({ connection: server.connection });
    const held = await intentHeldUnmined(
      world,
      { client, taskQueue },
      parseNewIntent({
        tenantId: 'acme',
        chainId: world.anvil.chainId,
        from: world.wallets[0],
        to: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
        amount: parseEther('0.1').toString(),
      }),
      'confirming',
    );
    await record({ ...held, world, client });
  } finally {
    await world.testClient.setAutomine(true);
    await relayer.stop();
    await world.stop();
  }
}

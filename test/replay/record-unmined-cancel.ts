import { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { parseNewIntent } from '../../domain/intent-request';
import { cancelIntent } from '../../service/cancel-intent';
import { startRelayerProcess } from '../../workers/relayer-process';
import { intentHeldUnmined } from '../support/intent-in-review';
import { startTestWorld } from '../support/test-world';

/**
 * `npm run record:histories -- unmined-cancel`: a payment held unmined in the node's pool whose
 * tenant cancels it (the `cancelUnmined` update): the cancel is signed and sent, the confirmation
 * wait wakes, and the cancel is mined.
 */
export async function recordUnminedCancel(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-unmined-cancel';
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const client = new Client({ connection: server.connection });
    const { intent, handle } = await intentHeldUnmined(
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
    const tenant = { role: 'tenant' as const, tenantId: 'acme', keyId: 'recorder', label: 'rec' };
    await cancelIntent({ database: world.database, client }, tenant, intent.id, 'recorded');
    await world.testClient.mine({ blocks: 1 });
    const outcome = await handle.result();
    const file = join(__dirname, 'histories', 'payment-intent-cancelled-unmined.json');
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${handle.workflowId}: ${outcome.status} (${outcome.reasonCode}) → ${file}`);
  } finally {
    await world.testClient.setAutomine(true);
    await relayer.stop();
    await world.stop();
  }
}

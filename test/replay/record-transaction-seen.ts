import { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { parseNewIntent } from '../../domain/intent-request';
import { startRelayerProcess } from '../../workers/relayer-process';
import { intentHeldUnmined } from '../support/intent-in-review';
import { startTestWorld } from '../support/test-world';

/**
 * `npm run record:histories -- transaction-seen`: a payment unmined for a few seconds (its looks
 * spaced out), then mined: the block follower's `transactionSeen` signal ends its wait, and the
 * look it brings finds the receipt.
 */
export async function recordTransactionSeen(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-transaction-seen';
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const client = new Client({ connection: server.connection });
    const { handle } = await intentHeldUnmined(
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
    await new Promise((resolve) => setTimeout(resolve, 4000));
    await world.testClient.mine({ blocks: 1 });
    const outcome = await handle.result();
    const history = await handle.fetchHistory();
    const signalled = history.events!.some(
      (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'transactionSeen',
    );
    if (!signalled) throw new Error('the follower did not signal: nothing new to record');
    const file = join(__dirname, 'histories', 'payment-intent-seen-by-follower.json');
    writeFileSync(file, historyToJSON(history));
    console.log(`${handle.workflowId}: ${outcome.status} → ${file}`);
  } finally {
    await world.testClient.setAutomine(true);
    await relayer.stop();
    await world.stop();
  }
}

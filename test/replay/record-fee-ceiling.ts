import { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEther, parseGwei } from 'viem';
import { intentWorkflow } from '../../client/intent-workflows';
import { submitIntent } from '../../service/submit-intent';
import { getIntent } from '../../store/intents';
import { startRelayerProcess } from '../../workers/relayer-process';
import { waitFor } from '../harness/stack/wait-for';
import { startTestWorld } from '../harness/test-world';

/**
 * `npm run record:histories -- fee-ceiling`: a payment with its own fee ceiling submitted while
 * the base fee is above it: it looks, waits on a timer and looks again, unsigned, then is paid
 * once the base fee drops.
 */
export async function recordFeeCeiling(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-fee-ceiling';
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const client = new Client({ connection: server.connection });
    await world.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('50') });
    await world.testClient.mine({ blocks: 1 });
    const { intent } = await submitIntent(
      { database: world.database, client, taskQueue },
      {
        tenantId: 'acme',
        chainId: world.anvil.chainId,
        to: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
        amount: parseEther('0.01').toString(),
        maxFeePerGas: parseGwei('10').toString(),
      },
      { idempotencyKey: 'record-fee-ceiling' },
    );
    await waitFor(
      async () =>
        (await getIntent(world.database.kysely, intent.id)).reasonCode === 'fee_above_ceiling',
      'the payment to wait for the fee',
    );
    // Two looks or more while the fee stays above the ceiling.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await world.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('1') });
    await world.testClient.mine({ blocks: 1 });
    const { handle } = intentWorkflow(client, intent.id);
    const outcome = await handle.result();
    const file = join(__dirname, 'histories', 'payment-intent-fee-ceiling-waited.json');
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${handle.workflowId}: ${outcome.status} → ${file}`);
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

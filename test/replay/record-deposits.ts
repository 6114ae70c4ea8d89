import { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import type { depositScan, depositUpkeep } from '../../workflows';
import { startRelayerProcess } from '../../workers/relayer-process';
import { depositWorld, handOutAddress, sendNative } from '../harness/deposit-world';
import { startTestWorld } from '../harness/test-world';

/**
 * `npm run record:histories -- deposits`: a deposit's scan that credits it, then the chain's
 * deposit upkeep, whose sweep (the house's intent, `depositSweepV2`) empties the address.
 */
export async function recordDeposits(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ anvil: { slotsInAnEpoch: 1 }, tenants: { acme: '0' } });
  const taskQueue = 'record-deposits';
  const { factory, env } = await depositWorld(world, taskQueue);
  const relayer = await startRelayerProcess(
    world.config({ ...env, DEPOSIT_SCAN_MS: '0', DEPOSIT_SWEEP_MS: '0', ORPHAN_SWEEP_MS: '0' }),
  );
  try {
    const client = new Client({ connection: server.connection });
    const chainId = world.anvil.chainId;
    const address = await handOutAddress(world, factory, 'acme');
    await sendNative(world, address, parseEther('0.5'));
    // Two blocks on top make it final (anvil's finalized block trails by two here).
    await world.testClient.mine({ blocks: 3 });
    const scan = await client.workflow.start<typeof depositScan>('depositScan', {
      taskQueue,
      workflowId: `deposit-scan@${taskQueue}/${chainId}-recorded`,
      args: [{ chainId, maxBlocks: 100, creditLimit: 500 }],
    });
    console.log(`deposit scan: ${JSON.stringify(await scan.result())}`);
    writeFileSync(
      join(__dirname, 'histories', 'deposit-scan.json'),
      historyToJSON(await scan.fetchHistory()),
    );
    const upkeep = await client.workflow.start<typeof depositUpkeep>('depositUpkeep', {
      taskQueue,
      workflowId: `deposit-upkeep@${taskQueue}/${chainId}-recorded`,
      args: [{ chainId }],
    });
    const { started } = await upkeep.result();
    writeFileSync(
      join(__dirname, 'histories', 'deposit-upkeep.json'),
      historyToJSON(await upkeep.fetchHistory()),
    );
    const sweep = client.workflow.getHandle(paymentIntentWorkflowId(started[0]!));
    const outcome = await sweep.result();
    const file = join(__dirname, 'histories', 'deposit-sweep-confirmed.json');
    writeFileSync(file, historyToJSON(await sweep.fetchHistory()));
    console.log(`deposit sweep ${started[0]}: ${outcome.status}; its history → ${file}`);
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

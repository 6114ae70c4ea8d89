import { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { waitFor } from '../harness/stack/wait-for';
import { scheduleBodySchema, temporalScheduleId } from '../../domain/payment-schedule';
import { createSchedule } from '../../service/payment-schedules';
import { startRelayerProcess } from '../../workers/relayer-process';
import { startTestWorld } from '../harness/test-world';

/**
 * `npm run record:histories -- schedules`: one occurrence of a payment schedule, triggered: its
 * `scheduledPayment` run admits the occurrence's intent and starts its payment.
 */
export async function recordScheduledPayment(server: TestWorkflowEnvironment): Promise<void> {
  const world = await startTestWorld({ tenants: { acme: '1' } });
  const taskQueue = 'record-schedules';
  const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: taskQueue }));
  try {
    const client = new Client({ connection: server.connection });
    const deps = { database: world.database, client, chains: world.chains, taskQueue };
    const tenant = { role: 'tenant' as const, tenantId: 'acme', keyId: 'recorder', label: 'r' };
    const body = scheduleBodySchema.parse({
      payment: {
        chainId: world.anvil.chainId,
        to: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
        amount: parseEther('0.01').toString(),
      },
      every: '1d',
    });
    const { schedule } = await createSchedule(deps, tenant, body, 'record-schedule');
    const timer = client.schedule.getHandle(temporalScheduleId(schedule.id));
    await timer.trigger();
    let workflowId = '';
    await waitFor(async () => {
      const [action] = (await timer.describe()).info.recentActions;
      workflowId = action?.action.workflow.workflowId ?? '';
      return workflowId !== '';
    }, 'the triggered occurrence');
    const handle = client.workflow.getHandle(workflowId);
    const outcome = await handle.result();
    const file = join(__dirname, 'histories', 'scheduled-payment.json');
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${workflowId}: ${outcome.outcome} → ${file}`);
    await timer.delete();
  } finally {
    await relayer.stop();
    await world.stop();
  }
}

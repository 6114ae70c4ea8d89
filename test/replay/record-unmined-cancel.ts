import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cancelIntent } from '../../service/cancel-intent';
import { speedUpIntent } from '../../service/speed-up';
import { withHeldUnminedPayment } from './held-unmined-payment';

/**
 * `npm run record:histories -- unmined-cancel`: a payment held unmined in the node's pool whose
 * tenant cancels it (the `cancelUnmined` update): the cancel is signed and sent, the confirmation
 * wait wakes, and the cancel is mined.
 */
export const recordUnminedCancel = (server: TestWorkflowEnvironment): Promise<void> =>
  withHeldUnminedPayment(
    server,
    'record-unmined-cancel',
    async ({ world, client, intent, handle }) => {
      const tenant = { role: 'tenant' as const, tenantId: 'acme', keyId: 'recorder', label: 'rec' };
      await cancelIntent({ database: world.database, client }, tenant, intent.id, 'recorded');
      await world.testClient.mine({ blocks: 1 });
      const outcome = await handle.result();
      const file = join(__dirname, 'histories', 'payment-intent-cancelled-unmined.json');
      writeFileSync(file, historyToJSON(await handle.fetchHistory()));
      console.log(`${handle.workflowId}: ${outcome.status} (${outcome.reasonCode}) → ${file}`);
    },
  );

/**
 * `npm run record:histories -- speed-up`: a payment held unmined in the node's pool whose tenant
 * speeds it up (the `speedUp` update): the replacement is signed and sent at its nonce, the
 * confirmation wait wakes, and the replacement is mined.
 */
export const recordSpeedUp = (server: TestWorkflowEnvironment): Promise<void> =>
  withHeldUnminedPayment(server, 'record-speed-up', async ({ world, client, intent, handle }) => {
    const tenant = { role: 'tenant' as const, tenantId: 'acme', keyId: 'recorder', label: 'rec' };
    await speedUpIntent({ database: world.database, client }, tenant, intent.id, {
      note: 'recorded',
    });
    await world.testClient.mine({ blocks: 1 });
    const outcome = await handle.result();
    const file = join(__dirname, 'histories', 'payment-intent-sped-up.json');
    writeFileSync(file, historyToJSON(await handle.fetchHistory()));
    console.log(`${handle.workflowId}: ${outcome.status} (${outcome.txHash}) → ${file}`);
  });

import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withHeldUnminedPayment } from './held-unmined-payment';

/**
 * `npm run record:histories -- transaction-seen`: a payment unmined for a few seconds (its looks
 * spaced out), then mined: the block follower's `transactionSeen` signal ends its wait, and the
 * look it brings finds the receipt.
 */
export const recordTransactionSeen = (server: TestWorkflowEnvironment): Promise<void> =>
  withHeldUnminedPayment(server, 'record-transaction-seen', async ({ world, handle }) => {
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
  });

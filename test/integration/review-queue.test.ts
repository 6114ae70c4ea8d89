import { parseEther } from 'viem';
import type { RelayerApiClient } from '../../cli/api-client';
import { parseNewIntent } from '../../domain/intent-request';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { waitFor } from '../harness/stack/wait-for';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { intentProgressQuery } from '../../workflows';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';
import { intentWaitingInReview } from '../harness/intent-in-review';

/**
 * needs_review as a queue: the intent's workflow stays open there, found by its search
 * attributes (status and tenant, one filter), until an operator's decision reaches it through
 * the API as a Temporal Update.
 */
const world = useWorld({ tenants: { acme: '10' } });
let api: ApiUnderTest;
let relayer: RelayerProcess;
let operator: RelayerApiClient;
beforeAll(async () => {
  api = await startApiWithoutWorkers(world);
  operator = api.as((await createKeys(world, ['acme'])).operator);
  relayer = await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
});
world.onStop(async () => {
  await world?.testClient.setAutomine(true);
  await relayer?.stop();
  await api?.close();
});

const intentStuckInReview = (confirmTimeoutMs: number) =>
  intentWaitingInReview(
    world,
    api,
    parseNewIntent({
      tenantId: 'acme',
      chainId: world.anvil.chainId,
      from: world.wallets[0],
      to: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      amount: parseEther('0.5').toString(),
    }),
    confirmTimeoutMs,
  );

describe('needs_review is a queue of open workflows, resolved by update', () => {
  it('is found with one filter, refuses an unsafe decision, and a retry through the API confirms it', async () => {
    // Long enough for the retried send to be mined before the timeout comes round again, even on
    // a loaded machine; the first wait for review is that long too.
    const { intent, handle } = await intentStuckInReview(5000);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const query = `IntentStatus = "needs_review" AND TenantId = "acme"`;
    await waitFor(
      async () => {
        for await (const workflow of api.client.workflow.list({ query })) {
          if (workflow.workflowId === paymentIntentWorkflowId(intent.id)) return true;
        }
        return false;
      },
      'the waiting intent to be listed by its search attributes',
      15_000,
    );

    // Its transaction is still in the node's pool: failing it could release money that leaves.
    await expect(
      operator.review(intent.id, 'fail', { reason: 'looks lost' }),
    ).rejects.toMatchObject({
      status: 409,
      body: { code: 'review_refused', details: { problem: 'transaction_may_still_land' } },
    });
    expect((await handle.query(intentProgressQuery)).status).toBe('needs_review');

    // A retry sends the same bytes and follows them; the node then mines them.
    expect((await operator.review(intent.id, 'retry', { note: 'node back' })).status).toMatch(
      /^(signed|confirming)$/,
    );
    await world.testClient.setAutomine(true);
    await world.testClient.mine({ blocks: 1 });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'confirmed', txHash: intent.txHash });
    expect((await operator.audit(intent.id)).map((entry) => entry.action)).toEqual(['retry']);
    await expectBooksBalanced(world.database);
  });

  it('an intent in review whose workflow has ended is still resolved, directly', async () => {
    const { intent, handle } = await intentStuckInReview(1500);
    await handle.terminate('ended the way workflows ended in review before they waited there');
    await world.testClient.setAutomine(true);
    await world.testClient.mine({ blocks: 1 });
    const resolved = await operator.review(intent.id, 'confirm', { txHash: intent.txHash! });
    expect(resolved).toMatchObject({ status: 'confirmed', txHash: intent.txHash });
    expect((await operator.audit(intent.id)).map((entry) => entry.action)).toEqual([
      'resolve_confirmed',
    ]);
  });

  it('a decision for an intent not in review is refused with not_in_review', async () => {
    const { intent, handle } = await intentStuckInReview(1500);
    await world.testClient.setAutomine(true);
    await world.testClient.mine({ blocks: 1 });
    await operator.review(intent.id, 'confirm', { txHash: intent.txHash! });
    expect(await handle.result()).toMatchObject({ status: 'confirmed' });
    await expect(operator.review(intent.id, 'retry', {})).rejects.toMatchObject({
      status: 409,
      body: { code: 'not_in_review' },
    });
  });
});

import { parseEther } from 'viem';
import { getIntent, insertIntent } from '../../activities/store/intent-store';
import type { RelayerApiClient } from '../../client/api-client';
import { parseNewIntent } from '../../domain/intent-request';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { newIntentId } from '../../service/new-intent-id';
import { waitFor } from '../../stack/wait-for';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import type { paymentIntent } from '../../workflows';
import { intentProgressQuery } from '../../workflows';
import { intentStatusKey, tenantIdKey } from '../../workflows/search-attributes';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../support/api';
import { expectBooksBalanced } from '../support/ledger-checks';
import { startTestWorld, type TestWorld } from '../support/test-world';

/**
 * needs_review as a queue: the intent's workflow stays open there, found by its search
 * attributes (status and tenant, one filter), until an operator's decision reaches it through
 * the API as a Temporal Update.
 */
let world: TestWorld;
let api: ApiUnderTest;
let relayer: RelayerProcess;
let operator: RelayerApiClient;
beforeAll(async () => {
  world = await startTestWorld({ tenants: { acme: '10' } });
  api = await startApiWithoutWorkers(world);
  operator = api.as((await createKeys(world, ['acme'])).operator);
  relayer = await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
});
afterAll(async () => {
  await world?.testClient.setAutomine(true);
  await relayer?.stop();
  await api?.close();
  await world?.stop();
});

/** An intent whose transaction the node holds but does not mine: review after `timeoutMs`. */
async function intentStuckInReview(confirmTimeoutMs: number) {
  await world.testClient.setAutomine(false);
  const request = parseNewIntent({
    tenantId: 'acme',
    chainId: world.anvil.chainId,
    from: world.wallets[0],
    to: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    amount: parseEther('0.5').toString(),
  });
  const { intent } = await insertIntent(world.database.kysely, newIntentId(), request, new Date());
  const handle = await api.client.workflow.start<typeof paymentIntent>('paymentIntent', {
    taskQueue: api.taskQueue,
    workflowId: paymentIntentWorkflowId(intent.id),
    args: [{ intentId: intent.id, confirmTimeoutMs }],
    typedSearchAttributes: [
      { key: intentStatusKey, value: intent.status },
      { key: tenantIdKey, value: intent.tenantId },
    ],
  });
  await waitFor(
    async () => (await handle.query(intentProgressQuery)).status === 'needs_review',
    'the intent to wait in review',
    30_000,
  );
  return { intent: await getIntent(world.database.kysely, intent.id), handle };
}

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

import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { IntentStatus } from '../../domain/intent';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { waitFor } from '../harness/stack/wait-for';
import { createApiKey } from '../../service/api-keys';
import { auditTrail } from '../../store/audit-log';
import { getIntent } from '../../store/intents';
import { createTenant, deposit, tenantBalance } from '../../store/ledger';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import {
  apiRefusal as refusal,
  createKeys,
  startApiWithoutWorkers,
  type ApiUnderTest,
} from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

// Four eyes on a real dev server, database and chain: an intent at or above its tenant's approval
// threshold waits with nothing held until a second key approves it, then is paid by the same
// workflow; rejected, it ends with nothing sent.

const world = useWorld({ tenants: {} });
let api: ApiUnderTest;
let relayer: RelayerProcess | undefined;
let connection: Connection;
const keys: Record<'clerk' | 'cfo' | 'operator', string> = { clerk: '', cfo: '', operator: '' };

beforeAll(async () => {
  await createTenant(world.database, { id: 'fouryes', name: 'fouryes' }, new Date());
  await deposit(world.database, 'fouryes', parseEther('100'), new Date(), world.nativeBook);
  // One open intent at a time: those awaiting approval do not count against it.
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 1 });
  const created = await createKeys(world, ['fouryes']);
  keys.clerk = created.fouryes;
  keys.operator = created.operator;
  keys.cfo = (
    await createApiKey(
      world.database,
      { role: 'tenant', tenantId: 'fouryes', label: 'cfo', scopes: ['intents:read', 'approve'] },
      new Date(),
    )
  ).apiKey;
  await api.as(keys.operator).setPolicyLimits('fouryes', {
    chainId: world.anvil.chainId,
    approvalThreshold: parseEther('1').toString(),
  });
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
});
world.onStop(async () => {
  await relayer?.stop();
  await connection?.close();
  await api?.close();
});

const payment = (ether: string) => ({
  chainId: world.anvil.chainId,
  from: world.wallets[0]!,
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' as const,
  amount: parseEther(ether).toString(),
});

const statusOf = async (id: string) => (await getIntent(world.database.kysely, id)).status;

it('waits at the threshold with nothing held and no open slot; the submitting key cannot approve; a second key approves and it is paid, or rejects and nothing is sent', async () => {
  const clerk = api.as(keys.clerk);
  const cfo = api.as(keys.cfo);
  const big = (await clerk.submit(payment('1'), 'big-1')).body;
  const other = (await clerk.submit(payment('2'), 'big-2')).body;
  expect([big.status, other.status]).toEqual(['awaiting_approval', 'awaiting_approval']);
  expect(await tenantBalance(world.database.kysely, 'fouryes', world.nativeBook)).toMatchObject({
    held: 0n,
  });
  // Below the threshold it is admitted as usual, into the one open slot the waiting ones left.
  const small = (await clerk.submit(payment('0.999999999999999999'), 'small-1')).body;
  expect(small.status).toBe('authorized');
  expect((await refusal(clerk.submit(payment('0.1'), 'small-2'))).body.code).toBe(
    'tenant_limit_reached',
  );

  // Findable in the Web UI by its status (by id too: this file also runs on PostgreSQL, with
  // the same tenant, on the same server).
  const client = new Client({ connection });
  const ids = [big.id, other.id].map((id) => `'${paymentIntentWorkflowId(id)}'`).join(', ');
  await waitFor(
    async () =>
      (await client.workflow.count(`IntentStatus = "awaiting_approval" AND WorkflowId IN (${ids})`))
        .count === 2,
    'the waiting intents visible by their status',
  );

  relayer ??= await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
  await waitFor(async () => (await statusOf(small.id)) === IntentStatus.confirmed, 'small paid');
  // Still waiting, whatever the worker does meanwhile: no permit, no hold.
  expect(await statusOf(big.id)).toBe(IntentStatus.awaitingApproval);

  const own = await refusal(clerk.decideApproval(big.id, 'approve'));
  expect([own.status, own.body.code]).toEqual([403, 'scope_missing']);
  // Even with the scope, the key that submitted it cannot approve it.
  const clerkWithApprove = api.as(
    (
      await createApiKey(
        world.database,
        {
          role: 'tenant',
          tenantId: 'fouryes',
          label: 'clerk approver',
          scopes: ['intents:write', 'approve'],
        },
        new Date(),
      )
    ).apiKey,
  );
  const mine = (await clerkWithApprove.submit(payment('3'), 'big-3')).body;
  const refused = await refusal(clerkWithApprove.decideApproval(mine.id, 'approve'));
  expect([refused.status, refused.body.code]).toEqual([403, 'approval_refused']);

  const approved = await cfo.decideApproval(big.id, 'approve', 'invoice 4711 checked');
  expect(approved.status).not.toBe('awaiting_approval');
  await waitFor(async () => (await statusOf(big.id)) === IntentStatus.confirmed, 'big paid');

  const operatorApprover = (
    await createApiKey(
      world.database,
      { role: 'operator', label: 'treasury desk', scopes: ['intents:read', 'approve'] },
      new Date(),
    )
  ).apiKey;
  const rejected = await api.as(operatorApprover).decideApproval(other.id, 'reject', 'duplicate');
  expect(rejected).toMatchObject({ status: 'rejected', reasonCode: 'rejected_by_approver' });
  expect(rejected.reason).toContain('duplicate');
  const late = await refusal(cfo.decideApproval(other.id, 'approve'));
  expect([late.status, late.body.code]).toEqual([409, 'not_awaiting_approval']);

  const trail = await auditTrail(world.database.kysely, big.id);
  expect(trail).toMatchObject([
    {
      action: 'approve',
      actor: expect.stringContaining('(cfo)'),
      detail: { note: 'invoice 4711 checked' },
    },
  ]);
  // Paid 1 + 0.999…: the rejected one held nothing and sent nothing; the third still waits.
  expect(await statusOf(mine.id)).toBe(IntentStatus.awaitingApproval);
  const balance = await tenantBalance(world.database.kysely, 'fouryes', world.nativeBook);
  expect(balance!.held).toBe(0n);
  expect(balance!.available).toBe(parseEther('100') - parseEther('1.999999999999999999'));
  await expectBooksBalanced(world.database);
});

it('a batch with an item at the threshold waits as a batch: nothing starts until one approval by another key, then every item is paid', async () => {
  relayer ??= await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
  // A key that may approve too: still not the batch it submitted itself.
  const clerk = api.as(
    (
      await createApiKey(
        world.database,
        {
          role: 'tenant',
          tenantId: 'fouryes',
          label: 'batch clerk',
          scopes: ['intents:read', 'batches:write', 'approve'],
        },
        new Date(),
      )
    ).apiKey,
  );
  const cfo = api.as(keys.cfo);
  const batch = (
    await clerk.submitBatch(
      { items: [payment('1'), payment('0.01'), payment('1.5')], concurrency: 1 },
      'batch-1',
    )
  ).body;
  expect(batch).toMatchObject({ status: 'awaiting_approval', submittedBy: expect.any(String) });
  // With a worker polling, it still waits: no item becomes an intent.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(await clerk.getBatch(batch.id)).toMatchObject({
    status: 'awaiting_approval',
    counts: { pending: 3 },
  });
  const own = await refusal(clerk.decideBatchApproval(batch.id, 'approve'));
  expect(own).toMatchObject({ status: 403, body: { code: 'approval_refused' } });

  const approved = await cfo.decideBatchApproval(batch.id, 'approve', 'payroll checked');
  expect(approved).toMatchObject({ status: 'running', decisionNote: 'payroll checked' });
  expect((await refusal(cfo.decideBatchApproval(batch.id, 'approve'))).body.code).toBe(
    'not_awaiting_approval',
  );
  await waitFor(
    async () => (await clerk.getBatch(batch.id)).status === 'completed',
    'the batch to complete',
  );
  const results = await clerk.batchResults(batch.id);
  expect(results.map((result) => result.status)).toEqual(['confirmed', 'confirmed', 'confirmed']);
  // Each item at the threshold records the batch's approver; none waited on its own.
  const [first, , third] = results;
  for (const item of [first!, third!]) {
    const trail = await auditTrail(world.database.kysely, item.intentId!);
    expect(trail).toEqual([
      expect.objectContaining({
        action: 'approve',
        actor: approved.decidedBy,
        detail: { batchId: batch.id, note: 'payroll checked' },
      }),
    ]);
  }
  await expectBooksBalanced(world.database);
});

it('a batch rejected (or cancelled) while it waits starts none of its items', async () => {
  relayer ??= await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
  const clerk = api.as(keys.clerk);
  const batch = (
    await clerk.submitBatch({ items: [payment('2'), payment('0.01')], concurrency: 1 }, 'batch-2')
  ).body;
  const rejected = await api.as(keys.cfo).decideBatchApproval(batch.id, 'reject', 'not ours');
  expect(rejected).toMatchObject({
    status: 'rejected',
    cause: expect.stringContaining('not ours'),
    causeCode: 'rejected_by_approver',
  });
  await waitFor(
    async () => (await clerk.getBatch(batch.id)).counts.skipped === 2,
    'its items skipped',
  );
  const results = await clerk.batchResults(batch.id);
  expect(results.map((result) => [result.status, result.intentId ?? null])).toEqual([
    ['skipped', null],
    ['skipped', null],
  ]);
  // Cancelled while it waits (by the key that submitted it): rejected, nothing started.
  const another = (await clerk.submitBatch({ items: [payment('3')], concurrency: 1 }, 'batch-3'))
    .body;
  const cancelled = await clerk.cancelBatch(another.id, 'wrong file');
  expect(cancelled).toMatchObject({
    status: 'rejected',
    cause: expect.stringContaining('cancelled: wrong file'),
    causeCode: 'rejected_by_approver',
  });
});

import { batchWorkflowId } from '../../domain/batch';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import {
  apiRefusal as refusal,
  createKeys,
  paymentBody,
  startApiWithoutWorkers,
  type ApiUnderTest,
} from '../harness/api';
import { weighTenant } from '../../service/tenants';
import { useWorld } from '../harness/test-world';

// What the API starts carries its priority to Temporal: the intent's or the batch's priority
// key and the tenant as the fairness key (no worker polls: only the starts are looked at).

const world = useWorld({ tenants: { acme: '1' } });
let api: ApiUnderTest;
let keys: Record<'acme' | 'operator', string>;

beforeAll(async () => {
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 10 });
  keys = await createKeys(world, ['acme']);
});
world.onStop(async () => {
  await api?.close();
});

const priorityOf = async (workflowId: string) =>
  (await api.client.workflow.getHandle(workflowId).describe()).priority;

it('starts an intent with its priority and its tenant as the fairness key; the same key is the same priority', async () => {
  const acme = api.as(keys.acme);
  const urgent = await acme.submit({ ...paymentBody(world), priority: 'urgent' }, 'urgent-1');
  expect(urgent.body.priority).toBe('urgent');
  expect(await priorityOf(paymentIntentWorkflowId(urgent.body.id))).toMatchObject({
    priorityKey: 1,
    fairnessKey: 'acme',
  });
  const plain = await acme.submit(paymentBody(world), 'plain-1');
  expect(plain.body.priority).toBe('normal');
  expect(await priorityOf(paymentIntentWorkflowId(plain.body.id))).toMatchObject({
    priorityKey: 3,
  });
  const other = await refusal(acme.submit({ ...paymentBody(world), priority: 'bulk' }, 'urgent-1'));
  expect(other.body.code).toBe('idempotency_key_reused');
  expect(
    (await refusal(acme.submit({ ...paymentBody(world), priority: 'now' } as never, 'x'))).message,
  ).toMatch(/priority must be urgent, normal or bulk/);
});

it('starts a batch as bulk unless it says otherwise, its items inheriting it', async () => {
  const acme = api.as(keys.acme);
  const item = paymentBody(world);
  const bulk = await acme.submitBatch({ items: [item] }, 'batch-bulk');
  expect(bulk.body.priority).toBe('bulk');
  expect(await priorityOf(batchWorkflowId(bulk.body.id))).toMatchObject({
    priorityKey: 5,
    fairnessKey: 'acme',
  });
  const normal = await acme.submitBatch({ items: [item], priority: 'normal' }, 'batch-normal');
  expect(await priorityOf(batchWorkflowId(normal.body.id))).toMatchObject({ priorityKey: 3 });
});

it("carries the tenant's fairness weight on each start from the moment it is set", async () => {
  const acme = api.as(keys.acme);
  const before = await acme.submit(paymentBody(world), 'weight-before');
  // Unset (described as 0): the server's default, 1.
  expect((await priorityOf(paymentIntentWorkflowId(before.body.id)))?.fairnessWeight).toBe(0);
  await weighTenant(world.database, 'acme', 2.5);
  const after = await acme.submit(paymentBody(world), 'weight-after');
  expect(await priorityOf(paymentIntentWorkflowId(after.body.id))).toMatchObject({
    fairnessKey: 'acme',
    fairnessWeight: 2.5,
  });
  const batch = await acme.submitBatch({ items: [paymentBody(world)] }, 'weight-batch');
  expect(await priorityOf(batchWorkflowId(batch.body.id))).toMatchObject({ fairnessWeight: 2.5 });
  await weighTenant(world.database, 'acme', null);
  const reset = await acme.submit(paymentBody(world), 'weight-reset');
  expect((await priorityOf(paymentIntentWorkflowId(reset.body.id)))?.fairnessWeight).toBe(0);
  await expect(weighTenant(world.database, 'nobody', 2)).rejects.toThrow(/no tenant nobody/);
});

import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { parseEther } from 'viem';
import { countPinnedRuns, makeCurrent, servesTaskQueue } from '../../client/worker-versions';
import { IntentStatus } from '../../domain/intent';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { waitFor } from '../harness/stack/wait-for';
import { createApiKey } from '../../service/api-keys';
import { getIntent } from '../../store/intents';
import { createTenant, deposit } from '../../store/ledger';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

// Worker Deployment Versioning on the dev server: two builds of the relayer on one task queue. A
// payment stays on the build that started it; one awaiting approval moves off it before its wait,
// so build 1's workers can go while it waits.

const world = useWorld({ tenants: {} });
let api: ApiUnderTest;
let connection: Connection;
const processes: RelayerProcess[] = [];

beforeAll(async () => {
  await createTenant(world.database, { id: 'builds', name: 'builds' }, new Date());
  await deposit(world.database, 'builds', parseEther('100'), new Date(), world.nativeBook);
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 10 });
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
});
// Each test finds blocks mined as they come, whatever the one before left (the first turns it off).
beforeEach(async () => {
  await world.testClient.setAutomine(true);
});
world.onStop(async () => {
  await world?.testClient.setAutomine(true);
  for (const relayer of processes) await relayer.stop();
  await connection?.close();
  await api?.close();
});

const build = async (buildId: string) => {
  const relayer = await startRelayerProcess(
    world.config({ TASK_QUEUE: api.taskQueue, WORKER_BUILD_ID: buildId }),
  );
  processes.push(relayer);
  return relayer;
};

/** The build that completed each of the run's workflow tasks, in order. */
const buildsOf = async (handle: WorkflowHandle): Promise<string[]> =>
  (await handle.fetchHistory()).events!.flatMap((event) => {
    const completed = event.workflowTaskCompletedEventAttributes;
    return completed ? [completed.deploymentVersion?.buildId ?? 'unversioned'] : [];
  });

it('a run stays on the build that started it; a new one takes the current build; one awaiting approval moves to it, and ends there after build 1 is gone', async () => {
  const client = new Client({ connection });
  const keys = await createKeys(world, ['builds']);
  const clerk = api.as(keys.builds);
  const cfo = api.as(
    (
      await createApiKey(
        world.database,
        { role: 'tenant', tenantId: 'builds', label: 'cfo', scopes: ['intents:read', 'approve'] },
        new Date(),
      )
    ).apiKey,
  );
  await api.as(keys.operator).setPolicyLimits('builds', {
    chainId: world.anvil.chainId,
    approvalThreshold: parseEther('5').toString(),
  });
  const payment = (ether: string) => ({
    chainId: world.anvil.chainId,
    to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' as const,
    amount: parseEther(ether).toString(),
  });
  const statusOf = async (id: string) => (await getIntent(world.database.kysely, id)).status;
  const handleOf = (id: string) => client.workflow.getHandle(paymentIntentWorkflowId(id));
  const deployment = api.taskQueue;

  const first = await build('build-1');
  expect(first.release).toBe(`deployment ${deployment} build build-1 (current)`);
  // Sent but not mined: the run waits for its receipt, on build 1, while build 2 takes over.
  await world.testClient.setAutomine(false);
  const early = (await clerk.submit(payment('1'), 'early')).body;
  const waiting = (await clerk.submit(payment('6'), 'big')).body;
  expect(waiting.status).toBe('awaiting_approval');
  await waitFor(async () => (await statusOf(early.id)) === IntentStatus.confirming, 'early sent');

  const second = await build('build-2');
  // When-first: a deployment with a current build keeps it until told otherwise.
  expect(second.release).toMatch(
    `deployment ${deployment} build build-2 (not current: build-1 is; temporal worker deployment set-current-version --deployment-name ${deployment} --build-id build-2)`,
  );
  const build2 = { deploymentName: deployment, buildId: 'build-2' };
  // Its start waited for that (the start line says where it stands). The server answers from its
  // version's own record, which once lagged the start by a moment under load: read until it says.
  await waitFor(() => servesTaskQueue(client, build2, api.taskQueue), 'build 2 serves', 5_000);
  await makeCurrent(client, build2);
  const late = (await clerk.submit(payment('1'), 'late')).body;
  await waitFor(async () => (await statusOf(late.id)) === IntentStatus.confirming, 'late sent');
  const onBuild1 = { deploymentName: deployment, buildId: 'build-1' };
  // The pinned run holds build 1; the one awaiting approval does not (its override).
  await waitFor(async () => (await countPinnedRuns(client, onBuild1)) === 1, 'one run on build 1');

  await world.testClient.setAutomine(true);
  await waitFor(async () => {
    await world.testClient.mine({ blocks: 1 });
    return (await statusOf(early.id)) === 'confirmed' && (await statusOf(late.id)) === 'confirmed';
  }, 'both confirmed');
  expect(new Set(await buildsOf(handleOf(early.id)))).toEqual(new Set(['build-1']));
  expect(new Set(await buildsOf(handleOf(late.id)))).toEqual(new Set(['build-2']));
  // A batch (hours long) takes each new build: auto-upgrade, where a payment is pinned.
  const batch = (await clerk.submitBatch({ items: [payment('0.1')] }, 'batch')).body;
  const behaviourOf = async (workflowType: string) => {
    const query = `WorkflowType = "${workflowType}" AND TemporalWorkerDeployment = "${deployment}"`;
    const behaviours = new Set<unknown>();
    for await (const run of client.workflow.list({ query })) {
      behaviours.add(run.searchAttributes.TemporalWorkflowVersioningBehavior?.[0]);
    }
    return [...behaviours];
  };
  await waitFor(
    async () => (await clerk.getBatch(batch.id)).status === 'completed',
    'the batch completed',
  );
  expect(await behaviourOf('paymentBatch')).toEqual(['AutoUpgrade']);
  expect(await behaviourOf('paymentIntentV2')).toContain('Pinned');

  await waitFor(
    async () => (await countPinnedRuns(client, onBuild1)) === 0,
    'build 1 drained (the run awaiting approval moved off it)',
    20_000,
  );
  processes.splice(processes.indexOf(first), 1);
  await first.stop();
  expect(await statusOf(waiting.id)).toBe(IntentStatus.awaitingApproval);
  await cfo.decideApproval(waiting.id, 'approve');
  await waitFor(async () => (await statusOf(waiting.id)) === 'confirmed', 'big paid on build 2');
  const builds = await buildsOf(handleOf(waiting.id));
  // Started on build 1 (its wait entered there); every task since the approval on build 2.
  expect(builds[0]).toBe('build-1');
  expect(builds.slice(builds.indexOf('build-2'))).toEqual(
    builds.slice(builds.indexOf('build-2')).map(() => 'build-2'),
  );
  expect(builds.filter((id) => id === 'build-2').length).toBeGreaterThan(1);
  await expectBooksBalanced(world.database);
});

it('with WORKER_VERSIONING=off a worker takes any run, and pays it', async () => {
  const plain = await startApiWithoutWorkers(world, { tenantMaxInFlight: 10 });
  try {
    const relayer = await startRelayerProcess(
      world.config({ TASK_QUEUE: plain.taskQueue, WORKER_VERSIONING: 'off' }),
    );
    processes.push(relayer);
    expect(relayer.release).toBe('unversioned');
    const keys = await createKeys(world, ['builds']);
    const { body } = await plain.as(keys.builds).submit(
      {
        chainId: world.anvil.chainId,
        to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        amount: parseEther('0.1').toString(),
      },
      'unversioned',
    );
    await waitFor(
      async () => (await getIntent(world.database.kysely, body.id)).status === 'confirmed',
      'paid by an unversioned worker',
    );
    const handle = new Client({ connection }).workflow.getHandle(paymentIntentWorkflowId(body.id));
    expect(new Set(await buildsOf(handle))).toEqual(new Set(['unversioned']));
  } finally {
    await plain.close();
  }
});

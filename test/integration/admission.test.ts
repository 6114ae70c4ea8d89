import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { insertIntent } from '../../store/intents';
import { createTenant, deposit } from '../../store/ledger';
import { createApiClient, ApiError, type RelayerApiClient } from '../../cli/api-client';
import { parseNewIntent } from '../../domain/intent-request';
import { newIntentId } from '../../operations/new-id';
import { orphanSweepScheduleId } from '../../client/sweep-schedules';
import { freePort } from '../harness/stack/free-port';
import { waitFor } from '../harness/stack/wait-for';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { createKeys, databaseSnapshot, paymentBody, startApiWithoutWorkers } from '../harness/api';
import { useWorld, type TestWorld } from '../harness/test-world';

async function outcome(call: Promise<{ status: number }>) {
  try {
    return { status: (await call).status };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.body.code, retryAfter: error.retryAfterSeconds };
  }
}

const countIntents = async (world: TestWorld, tenantId: string) =>
  (
    await world.database.kysely
      .selectFrom('intents')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .execute()
  ).length;

describe('admission without workers (intents stay open)', () => {
  const world = useWorld({ tenants: { solo: '10' } });
  beforeAll(async () => {
    await createTenant(world.database, { id: 'bulk', name: 'bulk', maxInFlight: 1000 }, new Date());
    await deposit(world.database, 'bulk', parseEther('10'), new Date(), world.nativeBook);
  });

  it('20 concurrent submits for a tenant with limit 2 admit exactly 2; a restart still counts them', async () => {
    const api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 2 });
    try {
      const keys = await createKeys(world, ['solo']);
      const solo = api.as(keys.solo);
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          outcome(solo.submit(paymentBody(world), `burst-${i}`)),
        ),
      );
      expect(outcomes.filter((o) => o.status === 202)).toHaveLength(2);
      expect(outcomes.filter((o) => o.status !== 202)).toEqual(
        Array(18).fill({ status: 429, code: 'tenant_limit_reached', retryAfter: undefined }),
      );
      expect(await countIntents(world, 'solo')).toBe(2);
      await api.close();

      const restarted = await startApiWithoutWorkers(world, { tenantMaxInFlight: 2 });
      try {
        const again = await outcome(
          restarted.as(keys.solo).submit(paymentBody(world), 'after-restart'),
        );
        expect(again).toMatchObject({ status: 429, code: 'tenant_limit_reached' });
      } finally {
        await restarted.close();
      }
    } finally {
      await api.close().catch(() => undefined);
    }
  });

  it('a full backlog is a 503 pool_full with Retry-After that writes nothing; a cancel frees a place', async () => {
    const backlog = (await world.database.kysely.selectFrom('intents').select('id').execute())
      .length;
    const api = await startApiWithoutWorkers(world, { backlogLimit: backlog + 3, perSecond: 2 });
    try {
      const { bulk } = await createKeys(world, ['bulk']);
      const client = api.as(bulk);
      const admitted = [];
      for (let i = 0; i < 3; i++)
        admitted.push((await client.submit(paymentBody(world), `fill-${i}`)).body);
      const before = await databaseSnapshot(world);
      const full = await outcome(client.submit(paymentBody(world), 'one-too-many'));
      expect(full).toEqual({
        status: 503,
        code: 'pool_full',
        retryAfter: Math.ceil((backlog + 3) / 2),
      });
      expect(await databaseSnapshot(world)).toEqual(before);
      await client.cancel(admitted[0]!.id);
      expect((await client.submit(paymentBody(world), 'one-too-many')).status).toBe(202);
    } finally {
      await api.close();
    }
  });
});

describe('admission with real workers', () => {
  const world = useWorld({ tenants: { acme: '10' } });
  let relayer: RelayerProcess;
  let connection: Connection;
  let api: RelayerApiClient;
  const taskQueue = `admission-${newIntentId()}`;
  beforeAll(async () => {
    relayer = await startRelayerProcess(
      world.config({
        API_PORT: String(await freePort()),
        TENANT_MAX_IN_FLIGHT: '2',
        TASK_QUEUE: taskQueue,
        // The fleet's sweep, every second here: it finds the orphan of the last test.
        ORPHAN_SWEEP_MS: '1000',
      }),
      ['worker', 'api'],
    );
    connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    const keys = await createKeys(world, ['acme']);
    api = createApiClient(relayer.apiUrl!, keys.acme);
  });
  world.onStop(async () => {
    await relayer?.stop();
    await new Client({ connection }).schedule
      .getHandle(orphanSweepScheduleId(taskQueue))
      .delete()
      .catch(() => undefined);
    await connection?.close();
  });

  it('a tenant at its limit is refused, and admitted again as soon as one of its intents completes', async () => {
    // Transactions wait in the mempool until the test mines them: the two intents stay open.
    await world.testClient.setAutomine(false);
    const first = (await api.submit(paymentBody(world), 'limit-1')).body;
    const second = (await api.submit(paymentBody(world), 'limit-2')).body;
    await waitFor(
      async () =>
        (await api.get(first.id)).status === 'confirming' &&
        (await api.get(second.id)).status === 'confirming',
      'both intents to be sent',
      30_000,
    );
    expect(await outcome(api.submit(paymentBody(world), 'limit-3'))).toMatchObject({
      status: 429,
      code: 'tenant_limit_reached',
    });
    await world.testClient.mine({ blocks: 1 });
    await world.testClient.setAutomine(true);
    await waitFor(
      async () => (await api.get(first.id)).status === 'confirmed',
      'the first to confirm',
      30_000,
    );
    expect((await api.submit(paymentBody(world), 'limit-3')).status).toBe(202);
  });

  it("an intent admitted just before a crash (no workflow yet) holds its slot, is started by the fleet's sweep, and frees its slot", async () => {
    await waitFor(
      async () => (await api.list({ status: 'confirmed' })).intents.length === 3,
      'earlier intents',
      30_000,
    );
    // Nothing is mined until the test says so: intents stay open while it counts slots.
    await world.testClient.setAutomine(false);
    try {
      const request = parseNewIntent({ ...paymentBody(world), tenantId: 'acme' });
      const { intent: orphan } = await insertIntent(
        world.database.kysely,
        newIntentId(),
        request,
        new Date(),
      );
      // The orphan and one more fill the tenant's two slots.
      expect((await api.submit(paymentBody(world), 'beside-orphan')).status).toBe(202);
      expect(await outcome(api.submit(paymentBody(world), 'over-with-orphan'))).toMatchObject({
        status: 429,
        code: 'tenant_limit_reached',
      });
      await waitFor(
        async () => (await api.get(orphan.id)).status === 'confirming',
        'the sweep to start the orphan and send it',
        30_000,
      );
      await world.testClient.mine({ blocks: 1 });
      await waitFor(
        async () => (await api.list({ status: 'confirming' })).intents.length === 0,
        'the orphan and its neighbour to confirm',
        30_000,
      );
      expect((await api.get(orphan.id)).status).toBe('confirmed');
      // Both slots are free again: two more are admitted, a third is not.
      expect((await api.submit(paymentBody(world), 'after-orphan-1')).status).toBe(202);
      expect((await api.submit(paymentBody(world), 'after-orphan-2')).status).toBe(202);
      expect(await outcome(api.submit(paymentBody(world), 'after-orphan-3'))).toMatchObject({
        status: 429,
        code: 'tenant_limit_reached',
      });
    } finally {
      await world.testClient.setAutomine(true);
    }
  });
});

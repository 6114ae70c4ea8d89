import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import { newIntentId } from '../../operations/new-id';
import { submitIntent, type SubmitDependencies } from '../../service/submit-intent';
import { submitBatch } from '../../service/submit-batch';
import { BatchMode } from '../../domain/batch';
import { scheduleBodySchema, temporalScheduleId } from '../../domain/payment-schedule';
import { createSchedule } from '../../service/payment-schedules';
import { ErrorName } from '../../domain/error-catalogue';
import { startRelayerProcess } from '../../workers/relayer-process';
import { waitFor } from '../harness/stack/wait-for';
import { useWorld } from '../harness/test-world';

const world = useWorld({ tenants: { acme: '1', quiet: '1' } });
let connection: Connection;
let deps: SubmitDependencies;
beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
  deps = {
    database: world.database,
    client: new Client({ connection }),
    taskQueue: `submit-${randomUUID()}`,
  };
});
world.onStop(async () => {
  await connection?.close();
});

const request = (overrides: Record<string, unknown> = {}) => ({
  tenantId: 'quiet',
  chainId: world.anvil.chainId,
  from: world.wallets[0],
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  amount: '1000',
  ...overrides,
});

async function rowCount(): Promise<number> {
  const { count } = await world.database.kysely
    .selectFrom('intents')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

async function workflowsOf(tenantId: string): Promise<number> {
  const { count } = await deps.client.workflow.count(`TenantId = "${tenantId}"`);
  return count;
}

describe('submitIntent: bad input writes nothing', () => {
  it.each([
    [
      'an unknown tenant',
      { tenantId: 'nobody' },
      ErrorName.unknownTenant,
      /^unknown tenant "nobody"$/,
    ],
    [
      'a zero amount',
      { amount: '0' },
      ErrorName.invalidIntent,
      /^invalid intent: amount: amount must be greater than zero$/,
    ],
    [
      'a negative amount',
      { amount: '-1' },
      ErrorName.invalidIntent,
      /^invalid intent: amount: amount must be a whole number of base units, digits only$/,
    ],
    [
      'a non-integer amount',
      { amount: '0.5' },
      ErrorName.invalidIntent,
      /^invalid intent: amount: amount must be a whole number of base units, digits only$/,
    ],
    [
      'a malformed address',
      { to: '0x1234' },
      ErrorName.invalidIntent,
      /^invalid intent: to: to is not a valid address/,
    ],
    [
      'a sender that is not a hot wallet',
      { from: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc' },
      ErrorName.invalidIntent,
      /^invalid intent: from: 0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc is not a hot wallet the tenant may send from on chain \d+/,
    ],
    [
      'an amount above the balance',
      { amount: parseEther('1.000000000000000001').toString() },
      ErrorName.insufficientBalance,
      /^tenant quiet has 1\b.* available, 1\.000000000000000001\b.* requested/,
    ],
  ])(
    'rejects %s with a typed error naming what is wrong, no row and no workflow',
    async (_, overrides, type, words) => {
      const rowsBefore = await rowCount();
      const error = await submitIntent(deps, request(overrides)).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).name).toBe(type);
      expect((error as Error).message).toMatch(words);
      expect(await rowCount()).toBe(rowsBefore);
      expect(await workflowsOf('quiet')).toBe(0);
    },
  );
});

describe('submitIntent: the same intent twice', () => {
  it('is one row and one workflow, and a different body under the same id is a conflict', async () => {
    const intentId = newIntentId();
    const first = await submitIntent(deps, request({ tenantId: 'acme' }), { intentId });
    const again = await submitIntent(deps, request({ tenantId: 'acme' }), { intentId });
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ created: false, workflowId: first.workflowId });
    expect(again.intent).toEqual(first.intent);
    const conflict = await submitIntent(deps, request({ tenantId: 'acme', amount: '2000' }), {
      intentId,
    }).catch((e: Error) => e);
    expect((conflict as Error).name).toBe(ErrorName.intentConflict);
    const runs = async () => {
      const found = [];
      for await (const run of deps.client.workflow.list({
        query: `WorkflowId = "${first.workflowId}"`,
      }))
        found.push(run);
      return found.length;
    };
    try {
      // Visibility lags a moment behind the start on a busy machine.
      await waitFor(async () => (await runs()) > 0, 'the workflow visible');
      expect(await runs()).toBe(1);
    } finally {
      await deps.client.workflow.getHandle(first.workflowId).terminate('test cleanup');
    }
  });

  it('never runs a finished intent again', async () => {
    const relayer = await startRelayerProcess(world.config({ TASK_QUEUE: deps.taskQueue }));
    try {
      const intentId = newIntentId();
      const first = await submitIntent(deps, request({ tenantId: 'acme' }), { intentId });
      const handle = deps.client.workflow.getHandle(first.workflowId);
      const outcome = await handle.result();
      expect(outcome).toMatchObject({ status: 'confirmed' });
      const { runId } = await handle.describe();

      const again = await submitIntent(deps, request({ tenantId: 'acme' }), { intentId });
      expect(again.created).toBe(false);
      expect(again.intent.status).toBe('confirmed');
      expect((await handle.describe()).runId).toBe(runId);
      const txCount = await world.chain.pendingNonce(world.wallets[0]!);
      expect(txCount).toBe(1);
    } finally {
      await relayer.stop();
    }
  });
});

// Tenant acme: the bad-input tests above count the workflows of tenant quiet (none may start).
describe('an Idempotency-Key past its window (IDEMPOTENCY_KEY_TTL_HOURS)', () => {
  const hour = 3_600_000;
  const at = (ms: number) => () => new Date(Date.now() + ms);
  const within = (clock: () => Date): SubmitDependencies => ({
    ...deps,
    clock,
    admission: {
      tenantMaxInFlight: 100,
      maxAwaitingApproval: 100,
      backlogLimit: 100,
      perSecond: 10,
      idempotencyKeyTtlMs: hour,
    },
  });

  it('names its intent inside the window; after it the same key is refused 422 expired, whatever the body, and nothing is written', async () => {
    const key = `ttl-${randomUUID()}`;
    const first = await submitIntent(within(at(0)), request({ tenantId: 'acme' }), {
      idempotencyKey: key,
    });
    const again = await submitIntent(within(at(hour - 60_000)), request({ tenantId: 'acme' }), {
      idempotencyKey: key,
    });
    expect(again).toMatchObject({ created: false, intent: { id: first.intent.id } });
    const before = await rowCount();
    for (const body of [
      request({ tenantId: 'acme' }),
      request({ tenantId: 'acme', amount: '2000' }),
    ]) {
      await expect(
        submitIntent(within(at(hour + 1000)), body, { idempotencyKey: key }),
      ).rejects.toMatchObject({
        name: ErrorName.idempotencyKeyExpired,
        details: { usedFor: first.intent.id },
        message: expect.stringMatching(new RegExp(`^Idempotency-Key "${key}" named`)),
      });
    }
    expect(await rowCount()).toBe(before);
  });

  it('refuses a schedule under an expired key the same way', async () => {
    const key = `ttl-schedule-${randomUUID()}`;
    const body = scheduleBodySchema.parse({
      payment: { chainId: world.anvil.chainId, to: request().to, amount: '1000' },
      every: '1d',
    });
    const tenant = { role: 'tenant' as const, tenantId: 'acme', keyId: 'k', label: 'test' };
    const scheduleDeps = (clock: () => Date) => ({ ...within(clock), chains: world.chains });
    const { schedule } = await createSchedule(scheduleDeps(at(0)), tenant, body, key);
    try {
      await expect(
        createSchedule(scheduleDeps(at(hour + 1000)), tenant, body, key),
      ).rejects.toMatchObject({
        name: ErrorName.idempotencyKeyExpired,
        details: { usedFor: schedule.id },
      });
    } finally {
      await deps.client.schedule.getHandle(temporalScheduleId(schedule.id)).delete();
    }
  });

  it('refuses a batch under an expired key the same way', async () => {
    const key = `ttl-batch-${randomUUID()}`;
    const batch = {
      items: [{ chainId: world.anvil.chainId, to: request().to as `0x${string}`, amount: 1000n }],
      concurrency: 1,
      mode: BatchMode.collectAll,
    };
    const batchDeps = (clock: () => Date) => ({ ...within(clock), taskQueue: deps.taskQueue });
    const { batch: first } = await submitBatch(batchDeps(at(0)), 'acme', batch, key);
    await expect(submitBatch(batchDeps(at(hour + 1000)), 'acme', batch, key)).rejects.toMatchObject(
      {
        name: ErrorName.idempotencyKeyExpired,
        details: { usedFor: first.id },
      },
    );
  });
});

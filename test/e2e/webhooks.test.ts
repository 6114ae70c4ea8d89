import { randomBytes, randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { WebhookDeliveryView } from '../../api/schemas/webhooks';
import { ApiError, type RelayerApiClient } from '../../cli/api-client';
import { waitFor } from '../../dev/stack/wait-for';
import { secretBox } from '../../webhooks/secret-box';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../support/api';
import { waitUntilEnded } from '../support/intents';
import { registeredTestToken, type RegisteredTestToken } from '../support/test-token';
import { useTestWorld } from '../support/test-world';
import type { WorkerProcess } from '../../dev/stack/worker-process';
import { WebhookReceiver } from '../../dev/stack/webhook-receiver';
import { temporal } from '@temporalio/proto';
import { webhookWorkflowId } from '../../client/webhook-workflows';
import { webhookTaskQueue } from '../../domain/task-queues';
import type { webhookDelivery } from '../../workflows';

/**
 * Standard Webhooks on every state change, from the outbox, delivered through Temporal: real
 * receivers on loopback that verify each request with the `standardwebhooks` package.
 */
jest.setTimeout(240_000);

const suite = useTestWorld({ wallets: 3, tenants: { acme: '100' } });
const key = randomBytes(32).toString('base64');
let api: ApiUnderTest;
let tenant: RelayerApiClient;
let token: RegisteredTestToken;
const receivers: WebhookReceiver[] = [];

/** The settings of every worker of this file (deliveries retried from 1 s, swept every 200 ms). */
const webhookEnv = {
  WEBHOOK_SECRETS_KEY: key,
  WEBHOOK_ALLOW_LOOPBACK: 'true',
  WEBHOOK_RETRY_INITIAL_MS: '1000',
  WEBHOOK_DISPATCH_MS: '200',
  WEBHOOK_TIMEOUT_MS: '2000',
};

beforeAll(async () => {
  const world = suite.world();
  api = await startApiWithoutWorkers(
    world,
    { tenantMaxInFlight: 200, backlogLimit: 500 },
    {
      webhooks: {
        box: secretBox(Buffer.from(key, 'base64')),
        policy: { allowLoopback: true },
        timeoutMs: 2000,
        rotationGraceMs: 3_600_000,
      },
    },
  );
  tenant = api.as((await createKeys(world, ['acme'])).acme);
  token = await registeredTestToken(world, {
    alias: 'WUSD',
    decimals: 6,
    tenants: { acme: 1000n },
  });
});
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await api?.close();
});

/** A receiver and its endpoint (every event type); disabled at the end of the test using it. */
async function receiverWithEndpoint(eventTypes?: string[]) {
  const receiver = await WebhookReceiver.start();
  receivers.push(receiver);
  const { body: endpoint } = await tenant.call<{ id: string; secret: string }>(
    'POST',
    '/v1/webhooks/endpoints',
    { body: { url: receiver.url, ...(eventTypes && { eventTypes }) } },
  );
  receiver.holdSecrets([endpoint.secret]);
  return { receiver, endpoint };
}

/** `count` payments of acme, one in four in the token; their intent ids. */
async function pay(count: number): Promise<string[]> {
  const world = suite.world();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { body } = await tenant.submit(
      {
        chainId: world.anvil.chainId,
        from: world.wallets[i % world.wallets.length]!,
        to: privateKeyToAccount(generatePrivateKey()).address,
        ...(i % 4 === 3 ? { asset: token.alias, amount: '1500000' } : { amount: '1000' }),
      },
      randomUUID(),
    );
    ids.push(body.id);
  }
  return ids;
}

const paidPath = ['authorized', 'settling', 'held', 'signed', 'confirming', 'confirmed'].map(
  (status) => `intent.${status}`,
);

/** Every intent of `ids` had each of its state changes delivered, once, in its order. */
async function expectEveryChangeInOrder(receiver: WebhookReceiver, ids: string[]) {
  await waitFor(
    () => ids.every((id) => (receiver.byIntent().get(id)?.length ?? 0) >= paidPath.length),
    'every state change delivered',
    120_000,
  );
  const byIntent = receiver.byIntent();
  for (const id of ids) {
    const events = byIntent.get(id)!;
    expect({ id, types: events.map((event) => event.type) }).toEqual({ id, types: paidPath });
    expect(events.map((event) => event.sequence)).toEqual(paidPath.map((_, i) => i + 1));
  }
}

/** The worker processes polling `taskQueue`, for workflow tasks and for activities. */
async function pollers(taskQueue: string) {
  const count = async (taskQueueType: temporal.api.enums.v1.TaskQueueType) =>
    (
      await api.client.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue },
        taskQueueType,
      })
    ).pollers.length;
  const { TaskQueueType } = temporal.api.enums.v1;
  return {
    workflow: await count(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
    activity: await count(TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
  };
}

async function disable(endpointId: string) {
  await tenant.call('POST', `/v1/webhooks/endpoints/${endpointId}/disable`);
}

describe('webhooks: every state change, signed, from the outbox, delivered by Temporal', () => {
  let worker: WorkerProcess;
  beforeAll(async () => {
    [worker] = (await suite.spawnWorkers(1, { TASK_QUEUE: api.taskQueue, ...webhookEnv })) as [
      WorkerProcess,
    ];
  });
  // The crash tests below bring workers of their own.
  afterAll(async () => {
    worker?.signal('SIGTERM');
    await worker?.exited;
  });

  it('20 intents, native and token: every change arrives once after dedupe by webhook-id, in sequence per intent', async () => {
    const { receiver, endpoint } = await receiverWithEndpoint();
    const ids = await pay(20);
    await waitUntilEnded(suite.world(), ids, 120_000);
    await expectEveryChangeInOrder(receiver, ids);
    expect(receiver.rejected).toEqual([]);
    // The same bytes signed on every attempt: each event arrived with a valid signature.
    expect(receiver.received.every((event) => event.verifiedWith[0])).toBe(true);
    // The delivery workflow ran on the main queue: the webhooks queue had pump slots, no workflow
    // threads (one set of them a process).
    const delivery = await api.client.workflow.getHandle(webhookWorkflowId(endpoint.id)).describe();
    expect(delivery.taskQueue).toBe(api.taskQueue);
    expect(await pollers(webhookTaskQueue(api.taskQueue))).toEqual({ workflow: 0, activity: 1 });
    await disable(endpoint.id);
  });

  it('a receiver answering 500 until each intent was refused three times gets everything afterwards, in order; the log shows the refusals', async () => {
    const { receiver, endpoint } = await receiverWithEndpoint();
    receiver.mode = 'fail';
    const ids = await pay(6);
    await waitUntilEnded(suite.world(), ids, 60_000);
    // Each intent's first event is retried after 1, 2, 4 … s: three refusals each, then recovery.
    const refusals = (id: string) => receiver.refusedIntents.filter((other) => other === id);
    await waitFor(
      () => ids.every((id) => refusals(id).length >= 3),
      'three refusals per intent',
      60_000,
    );
    expect(receiver.received).toEqual([]);
    // A pending delivery says when it is tried next; a refused one, later than it was made.
    const waiting = (
      await tenant.call<{ deliveries: WebhookDeliveryView[] }>(
        'GET',
        `/v1/webhooks/endpoints/${endpoint.id}/deliveries`,
      )
    ).body.deliveries.filter((delivery) => delivery.status === 'pending');
    expect(waiting.every((delivery) => delivery.nextAttemptAt !== null)).toBe(true);
    const refused = waiting.filter((delivery) => delivery.attempts > 0);
    expect(refused.length).toBeGreaterThan(0);
    for (const delivery of refused) {
      expect(Date.parse(delivery.nextAttemptAt!)).toBeGreaterThan(Date.parse(delivery.createdAt));
    }
    receiver.mode = 'ok';
    await expectEveryChangeInOrder(receiver, ids);
    // A delivery is marked once its receiver's 2xx is back: the last ones a moment after arriving.
    const deliveries = async () =>
      (
        await tenant.call<{ deliveries: { attempts: number; status: string }[] }>(
          'GET',
          `/v1/webhooks/endpoints/${endpoint.id}/deliveries`,
        )
      ).body.deliveries;
    await waitFor(
      async () => (await deliveries()).every((delivery) => delivery.status === 'delivered'),
      'every delivery marked delivered',
      10_000,
    );
    expect(Math.max(...(await deliveries()).map((delivery) => delivery.attempts))).toBeGreaterThan(
      2,
    );
    await disable(endpoint.id);
  });

  it('a hanging receiver holds no payment up: every intent confirms while its deliveries wait', async () => {
    const { receiver, endpoint } = await receiverWithEndpoint();
    receiver.mode = 'hang';
    const ids = await pay(12);
    await waitUntilEnded(suite.world(), ids, 60_000);
    const rows = await suite
      .world()
      .database.kysely.selectFrom('intents')
      .select('status')
      .where('id', 'in', ids)
      .execute();
    expect(rows.map((row) => row.status)).toEqual(ids.map(() => 'confirmed'));
    expect(receiver.received).toEqual([]);
    await disable(endpoint.id);
  });

  it('a rotated secret: deliveries verify with the old and with the new during the grace', async () => {
    const { receiver, endpoint } = await receiverWithEndpoint(['intent.confirmed']);
    const { body: rotated } = await tenant.call<{ secret: string }>(
      'POST',
      `/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`,
    );
    receiver.holdSecrets([endpoint.secret, rotated.secret]);
    const ids = await pay(3);
    await waitFor(() => receiver.deduped().length >= 3, 'three confirmations', 60_000);
    expect(receiver.deduped().map((event) => event.type)).toEqual(
      ids.map(() => 'intent.confirmed'),
    );
    expect(receiver.received.every((event) => event.verifiedWith.every(Boolean))).toBe(true);
    await disable(endpoint.id);
  });

  it('410 Gone disables the endpoint; enabled again, its waiting deliveries resume', async () => {
    const { receiver, endpoint } = await receiverWithEndpoint(['intent.confirmed']);
    receiver.mode = 'gone';
    const [id] = await pay(1);
    await waitFor(
      async () => {
        const { body } = await tenant.call<{ endpoints: { id: string; status: string }[] }>(
          'GET',
          '/v1/webhooks/endpoints',
        );
        return body.endpoints.find((e) => e.id === endpoint.id)?.status === 'disabled';
      },
      'the endpoint to be disabled',
      30_000,
    );
    receiver.mode = 'ok';
    await tenant.call('POST', `/v1/webhooks/endpoints/${endpoint.id}/enable`);
    await waitFor(() => receiver.deduped().length === 1, 'the confirmation after enabling', 30_000);
    expect(receiver.deduped()[0]).toMatchObject({ intentId: id, type: 'intent.confirmed' });
    await disable(endpoint.id);
  });

  it('refuses an endpoint that is not https, or resolves to a private address, and an unknown event type: nothing written', async () => {
    const world = suite.world();
    const before = await world.database.kysely
      .selectFrom('webhook_endpoints')
      .selectAll()
      .execute();
    const refusal = (body: object) =>
      tenant.call('POST', '/v1/webhooks/endpoints', { body }).then(
        () => 'accepted',
        (error: unknown) => (error instanceof ApiError ? [error.status, error.body.code] : error),
      );
    expect(
      await Promise.all([
        refusal({ url: 'http://example.com/hooks' }),
        refusal({ url: 'https://10.1.2.3/hooks' }),
        refusal({ url: 'https://169.254.169.254/latest' }),
        refusal({ url: 'https://[fd00::1]/hooks' }),
        refusal({ url: 'https://localhost.localdomain.invalid/x' }),
        refusal({ url: 'https://203.0.113.7/hooks', eventTypes: ['intent.paid'] }),
      ]),
    ).toEqual([
      [422, 'webhook_url_refused'],
      [422, 'webhook_url_refused'],
      [422, 'webhook_url_refused'],
      [422, 'webhook_url_refused'],
      [422, 'webhook_url_refused'],
      [400, 'invalid_request'],
    ]);
    expect(
      await world.database.kysely.selectFrom('webhook_endpoints').selectAll().execute(),
    ).toEqual(before);
  });
});

describe('webhooks through a worker killed with SIGKILL', () => {
  it.each(['after-hold', 'after-webhook-sent'] as const)(
    'killed at %s: the next worker still delivers every change, once after dedupe',
    async (point) => {
      const { receiver, endpoint } = await receiverWithEndpoint();
      const taskQueue = api.taskQueue;
      const [dying] = await suite.spawnWorkers(1, {
        TASK_QUEUE: taskQueue,
        ...webhookEnv,
        CRASH_AT: point,
      });
      const ids = await pay(4);
      expect(await dying!.exited).toBe('SIGKILL');
      const [next] = await suite.spawnWorkers(1, { TASK_QUEUE: taskQueue, ...webhookEnv });
      await waitUntilEnded(suite.world(), ids, 120_000);
      await expectEveryChangeInOrder(receiver, ids);
      next!.signal('SIGTERM');
      await next!.exited;
      if (point === 'after-webhook-sent') {
        // Delivered, then the worker died before it could say so: the same webhook-id again.
        expect(receiver.received.length).toBeGreaterThan(receiver.deduped().length);
      }
      await disable(endpoint.id);
    },
  );
});

describe('a delivery run the previous release started on the webhooks queue', () => {
  it('is served by a worker started while it runs: its endpoint gets every change, through that run', async () => {
    const { receiver, endpoint } = await receiverWithEndpoint();
    const webhooksQueue = webhookTaskQueue(api.taskQueue);
    // As the release before started them: on the webhooks queue, pumping on its own queue.
    const earlier = await api.client.workflow.start<typeof webhookDelivery>('webhookDelivery', {
      workflowId: webhookWorkflowId(endpoint.id),
      taskQueue: webhooksQueue,
      args: [
        {
          endpointId: endpoint.id,
          retry: { initialMs: 1000, forHours: 1 },
          concurrency: 8,
          attemptTimeoutMs: 2000,
        },
      ],
    });
    const [worker] = await suite.spawnWorkers(1, { TASK_QUEUE: api.taskQueue, ...webhookEnv });
    const ids = await pay(3);
    await waitUntilEnded(suite.world(), ids, 60_000);
    await expectEveryChangeInOrder(receiver, ids);
    const run = await api.client.workflow.getHandle(webhookWorkflowId(endpoint.id)).describe();
    expect({ runId: run.runId, taskQueue: run.taskQueue }).toEqual({
      runId: earlier.firstExecutionRunId,
      taskQueue: webhooksQueue,
    });
    // Workers of earlier tests polled its activities too: only workflow threads count here.
    expect((await pollers(webhooksQueue)).workflow).toBe(1);
    worker!.signal('SIGTERM');
    await worker!.exited;
    await disable(endpoint.id);
  });
});

describe('the dead-letter list', () => {
  it('a delivery still refused when its retry window ends is a dead letter; redelivered, it arrives', async () => {
    const { receiver, endpoint } = await receiverWithEndpoint(['intent.confirmed']);
    receiver.mode = 'fail';
    // Tried at 0, 1, 3 and 7 s after the event; the next try, at 15 s, is past its 7.2 s window.
    const [worker] = await suite.spawnWorkers(1, {
      TASK_QUEUE: api.taskQueue,
      ...webhookEnv,
      WEBHOOK_RETRY_HOURS: '0.002',
    });
    const [id] = await pay(1);
    const deliveries = async (status?: 'dead') =>
      (
        await tenant.call<{ deliveries: WebhookDeliveryView[] }>(
          'GET',
          `/v1/webhooks/endpoints/${endpoint.id}/deliveries${status ? `?status=${status}` : ''}`,
        )
      ).body.deliveries;
    await waitFor(async () => (await deliveries('dead')).length === 1, 'a dead letter', 60_000);
    const [dead] = await deliveries('dead');
    expect(dead).toMatchObject({
      intentId: id,
      type: 'intent.confirmed',
      lastStatusCode: 500,
      nextAttemptAt: null,
    });
    expect(dead!.attempts).toBeGreaterThanOrEqual(3);
    expect(receiver.refusedIntents.filter((intent) => intent === id)).toHaveLength(dead!.attempts);
    expect(receiver.received).toEqual([]);

    receiver.mode = 'ok';
    await tenant.call(
      'POST',
      `/v1/webhooks/endpoints/${endpoint.id}/deliveries/${dead!.eventId}/redeliver`,
    );
    await waitFor(() => receiver.deduped().length === 1, 'the redelivered event', 30_000);
    expect(receiver.deduped()[0]).toMatchObject({ intentId: id, webhookId: dead!.eventId });
    // The receiver has it once it answered 2xx; the worker marks the delivery a moment after.
    await waitFor(
      async () => (await deliveries())[0]?.status === 'delivered',
      'the delivery marked delivered',
      10_000,
    );
    expect(await deliveries()).toEqual([
      expect.objectContaining({ eventId: dead!.eventId, status: 'delivered' }),
    ]);
    worker!.signal('SIGTERM');
    await worker!.exited;
    await disable(endpoint.id);
  });
});

import type { WebhookDeliveryView } from '../../api/schemas/webhooks';
import { ApiError } from '../../cli/api-client';
import { waitFor } from '../harness/stack/wait-for';
import { waitUntilEnded } from '../harness/intents';
import type { WorkerProcess } from '../harness/stack/worker-process';
import { webhookWorkflowId } from '../../client/webhook-workflows';
import { webhookTaskQueue } from '../../domain/task-queues';
import {
  api,
  disable,
  expectEveryChangeInOrder,
  pay,
  pollers,
  receiverWithEndpoint,
  tenant,
  useWebhooksWorld,
  webhookEnv,
} from '../harness/webhooks-world';

/**
 * Standard Webhooks on every state change, from the outbox, delivered through Temporal: real
 * receivers on loopback that verify each request with the `standardwebhooks` package. Through a
 * killed worker, a previous release's run and the dead-letter list: webhooks-recovery.test.ts.
 */
jest.setTimeout(240_000);

const world = useWebhooksWorld();

describe('webhooks: every state change, signed, from the outbox, delivered by Temporal', () => {
  let worker: WorkerProcess;
  beforeAll(async () => {
    [worker] = (await world.spawnWorkers(1, { TASK_QUEUE: api.taskQueue, ...webhookEnv })) as [
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
    await waitUntilEnded(world, ids, 120_000);
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
    await waitUntilEnded(world, ids, 60_000);
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
    await waitUntilEnded(world, ids, 60_000);
    const rows = await world.database.kysely
      .selectFrom('intents')
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

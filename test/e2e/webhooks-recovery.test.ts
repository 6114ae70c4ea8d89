import type { WebhookDeliveryView } from '../../api/schemas/webhooks';
import { waitFor } from '../harness/stack/wait-for';
import { waitUntilEnded } from '../harness/intents';
import { webhookWorkflowId } from '../../client/webhook-workflows';
import { webhookTaskQueue } from '../../domain/task-queues';
import type { webhookDelivery } from '../../workflows';
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

/** Webhook deliveries through a killed worker, a previous release's run and a dead letter. */
jest.setTimeout(240_000);

const world = useWebhooksWorld();

describe('webhooks through a worker killed with SIGKILL', () => {
  it.each(['after-hold', 'after-webhook-sent'] as const)(
    'killed at %s: the next worker still delivers every change, once after dedupe',
    async (point) => {
      const { receiver, endpoint } = await receiverWithEndpoint();
      const taskQueue = api.taskQueue;
      const [dying] = await world.spawnWorkers(1, {
        TASK_QUEUE: taskQueue,
        ...webhookEnv,
        CRASH_AT: point,
      });
      const ids = await pay(4);
      expect(await dying!.exited).toBe('SIGKILL');
      const [next] = await world.spawnWorkers(1, { TASK_QUEUE: taskQueue, ...webhookEnv });
      await waitUntilEnded(world, ids, 120_000);
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
    const [worker] = await world.spawnWorkers(1, { TASK_QUEUE: api.taskQueue, ...webhookEnv });
    const ids = await pay(3);
    await waitUntilEnded(world, ids, 60_000);
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
    const [worker] = await world.spawnWorkers(1, {
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

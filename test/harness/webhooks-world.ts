import { randomBytes, randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type RelayerApiClient } from '../../cli/api-client';
import { waitFor } from './stack/wait-for';
import { secretBox } from '../../webhooks/secret-box';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from './api';
import { registeredTestToken, type RegisteredTestToken } from './test-token';
import { useWorld, type WorldInTest } from './test-world';
import { WebhookReceiver } from './stack/webhook-receiver';
import { temporal } from '@temporalio/proto';

/**
 * Standard Webhooks on every state change, from the outbox, delivered through Temporal: real
 * receivers on loopback that verify each request with the `standardwebhooks` package.
 */
let world: WorldInTest;
const key = randomBytes(32).toString('base64');
export let api: ApiUnderTest;
export let tenant: RelayerApiClient;
export let token: RegisteredTestToken;
const receivers: WebhookReceiver[] = [];

/** The settings of every worker of this file (deliveries retried from 1 s, swept every 200 ms). */
export const webhookEnv = {
  WEBHOOK_SECRETS_KEY: key,
  WEBHOOK_ALLOW_LOOPBACK: 'true',
  WEBHOOK_RETRY_INITIAL_MS: '1000',
  WEBHOOK_DISPATCH_MS: '200',
  WEBHOOK_TIMEOUT_MS: '2000',
};

/** The world of a webhooks suite: an API without workers, acme's key and a token it holds. */
export function useWebhooksWorld(): WorldInTest {
  world = useWorld({ wallets: 3, tenants: { acme: '100' } });
  beforeAll(async () => {
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
  world.onStop(async () => {
    for (const receiver of receivers) await receiver.close();
    await api?.close();
  });
  return world;
}

/** A receiver and its endpoint (every event type); disabled at the end of the test using it. */
export async function receiverWithEndpoint(eventTypes?: string[]) {
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
export async function pay(count: number): Promise<string[]> {
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

export const paidPath = ['authorized', 'settling', 'held', 'signed', 'confirming', 'confirmed'].map(
  (status) => `intent.${status}`,
);

/** Every intent of `ids` had each of its state changes delivered, once, in its order. */
export async function expectEveryChangeInOrder(receiver: WebhookReceiver, ids: string[]) {
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
export async function pollers(taskQueue: string) {
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

export async function disable(endpointId: string) {
  await tenant.call('POST', `/v1/webhooks/endpoints/${endpointId}/disable`);
}

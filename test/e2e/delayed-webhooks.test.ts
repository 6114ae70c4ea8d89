import { listAttempts } from '../../store/transaction-attempts';
import type { WorkerProcess } from '../harness/stack/worker-process';
import type { WebhookReceiver } from '../harness/stack/webhook-receiver';
import { waitFor } from '../harness/stack/wait-for';
import { freePort } from '../harness/stack/free-port';
import { waitUntilEnded } from '../harness/intents';
import {
  api,
  pay,
  receiverWithEndpoint,
  useWebhooksWorld,
  webhookEnv,
} from '../harness/webhooks-world';

/**
 * E2e tier, test:ci (~45 s): a payment the chain does not mine tells its tenant `intent.delayed`
 * once past DELAYED_AFTER_MS and once at each fee bump after that, at most DELAYED_NOTICES_MAX
 * times, signed and in sequence with its other events; the worker's metric counts each. A worker
 * killed right after recording one (`after-delayed-notice`): its replacement sends none twice.
 */
jest.setTimeout(240_000);

const world = useWebhooksWorld();
// Each test's workers end with it, passed or failed: the next test's payment meets its own only.
const running: WorkerProcess[] = [];
const spawn = async (env: Record<string, string>) => {
  const workers = await world.spawnWorkers(1, env);
  running.push(...workers);
  return workers;
};
afterEach(async () => {
  for (const worker of running.splice(0)) {
    worker.signal('SIGKILL');
    await worker.exited;
  }
});
const settings = (more: Record<string, string> = {}) => ({
  TASK_QUEUE: api.taskQueue,
  ...webhookEnv,
  DELAYED_AFTER_MS: '1000',
  DELAYED_NOTICES_MAX: '3',
  STUCK_AFTER_MS: '2000',
  ...more,
});

it('an unmined payment: intent.delayed past the threshold, then at each fee bump, at most three', async () => {
  const metricsPort = await freePort();
  await spawn(settings({ METRICS_PORT: String(metricsPort) }));
  const { receiver } = await receiverWithEndpoint();
  await world.testClient.setAutomine(false);
  const [id] = await pay(1);
  const delayedOf = () =>
    (receiver.byIntent().get(id!) ?? []).filter((event) => event.type === 'intent.delayed');
  try {
    await waitFor(() => delayedOf().length >= 3, 'three intent.delayed notices', 60_000);
    // A bump more with no notice: three was the most.
    const attemptsAtThird = await attemptsOf(id!);
    await waitFor(async () => (await attemptsOf(id!)) > attemptsAtThird, 'one more bump', 60_000);
  } finally {
    await blocksAgain();
  }
  await confirmedAndDelivered(receiver, id!);

  const events = receiver.byIntent().get(id!)!;
  expect(events.map((event) => event.sequence)).toEqual(events.map((_, i) => i + 1));
  expect(events.every((event) => event.verifiedWith.includes(true))).toBe(true);
  const delays = delayedOf().map((event) => event.data.delay as Record<string, unknown>);
  expect(delays.map((delay) => delay.reason)).toEqual(['threshold', 'fee_bump', 'fee_bump']);
  // Each bump's notice counts one more (a loaded machine's first look past the threshold may
  // come after the first bump: the threshold's notice then says so).
  const bumps = delays.map((delay) => delay.feeBumps as number);
  expect(bumps[1]).toBe(bumps[0]! + 1);
  expect(bumps[2]).toBe(bumps[1]! + 1);
  expect(delays[0]).toMatchObject({
    did: expect.stringMatching(/^(signed and sent; not mined after \d+ s|raised its fee 1 time)/),
    next: expect.stringMatching(/^looks again in about \d+ s; raises the fee again once/),
  });
  expect(delays[2]!.did).toMatch(
    new RegExp(`^raised its fee ${bumps[2]} time\\(s\\), now up to [\\d.]+ gwei$`),
  );
  // Each notice lies between the payment's confirming and its end.
  const types = events.map((event) => event.type);
  expect(types.indexOf('intent.delayed')).toBeGreaterThan(types.indexOf('intent.confirming'));
  expect(types.at(-1)).toBe('intent.confirmed');

  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  expect(metrics).toMatch(/relayer_intents_delayed_total\{reason="threshold"\} 1\n/);
  expect(metrics).toMatch(/relayer_intents_delayed_total\{reason="fee_bump"\} 2\n/);
});

const attemptsOf = async (intentId: string): Promise<number> =>
  (await listAttempts(world.database.kysely, intentId)).length;

it('a worker killed right after recording a notice: its replacement does not send it again', async () => {
  const [crashing] = await spawn(
    settings({ DELAYED_NOTICES_MAX: '2', CRASH_AT: 'after-delayed-notice@1' }),
  );
  const { receiver } = await receiverWithEndpoint();
  await world.testClient.setAutomine(false);
  const [id] = await pay(1);
  try {
    expect(await crashing!.exited).toBe('SIGKILL');
    expect(crashing!.output()).toMatch(/crash point after-delayed-notice reached/);
    await spawn(settings({ DELAYED_NOTICES_MAX: '2' }));
    await waitFor(
      async () => (await attemptsOf(id!)) >= 3,
      'two fee bumps by the replacement',
      60_000,
    );
  } finally {
    await blocksAgain();
  }
  await confirmedAndDelivered(receiver, id!);
  const delayed = receiver
    .byIntent()
    .get(id!)!
    .filter((event) => event.type === 'intent.delayed')
    .map((event) => (event.data.delay as { reason: string }).reason);
  expect(delayed).toEqual(['threshold', 'fee_bump']);
});

/** The chain mines again, at once: the payment waiting in its pool is mined. */
async function blocksAgain(): Promise<void> {
  await world.testClient.setAutomine(true);
  await world.testClient.mine({ blocks: 1 });
}

/** The intent ended and its `intent.confirmed` reached the receiver (its last event). */
async function confirmedAndDelivered(receiver: WebhookReceiver, intentId: string): Promise<void> {
  await waitUntilEnded(world, [intentId], 60_000);
  await waitFor(
    () => receiver.byIntent().get(intentId)?.at(-1)?.type === 'intent.confirmed',
    'intent.confirmed delivered',
    60_000,
  );
}

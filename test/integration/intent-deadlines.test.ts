import { parseEther } from 'viem';
import { IntentStatus } from '../../domain/intent';
import { waitFor } from '../harness/stack/wait-for';
import { getIntent } from '../../store/intents';
import { parseNewIntent } from '../../domain/intent-request';
import { intentWaitingInReview } from '../harness/intent-in-review';
import { createTenant, deposit, tenantBalance } from '../../store/ledger';
import { listAttempts } from '../../store/transaction-attempts';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import {
  apiRefusal as refusal,
  createKeys,
  startApiWithoutWorkers,
  type ApiUnderTest,
} from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

// Deadlines on a real dev server, database and chain (through a proxy that can take the RPC
// endpoint down): validUntil and notBefore checked at admission, a payment held back until
// notBefore, one whose send could not go before validUntil ending expired with its hold
// released and nothing signed, and one sent but unmined past it, which only a cancel follows.

const world = useWorld({ proxy: true, tenants: {} });
let api: ApiUnderTest;
let relayer: RelayerProcess;
let tenantKey: string;
let operatorKey: string;
const deposited = parseEther('10');

beforeAll(async () => {
  await createTenant(world.database, { id: 'timely', name: 'timely' }, new Date());
  await deposit(world.database, 'timely', deposited, new Date(), world.nativeBook);
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 10 });
  const keys = await createKeys(world, ['timely']);
  tenantKey = keys.timely;
  operatorKey = keys.operator;
  relayer = await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
});
world.onStop(async () => {
  world?.proxy?.failWith(undefined);
  await relayer?.stop();
  await api?.close();
});

const payment = (extra: Record<string, string> = {}) => ({
  chainId: world.anvil.chainId,
  from: world.wallets[0]!,
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' as const,
  amount: parseEther('0.1').toString(),
  ...extra,
});
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
const intentCount = async () =>
  (
    await world.database.kysely
      .selectFrom('intents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', 'timely')
      .executeTakeFirstOrThrow()
  ).n;

it('refuses a deadline already past, a notBefore not before it, and a time without its offset, naming the field and writing nothing', async () => {
  const client = api.as(tenantKey);
  const before = Number(await intentCount());
  const cases = [
    [{ validUntil: inSeconds(-1) }, 'validUntil', /already passed/],
    [{ validUntil: inSeconds(60), notBefore: inSeconds(120) }, 'notBefore', /before validUntil/],
    [{ validUntil: '2030-01-01T00:00:00' }, 'validUntil', /with its offset/],
    [{ notBefore: inSeconds(400 * 86_400) }, 'notBefore', /366 days/],
  ] as const;
  for (const [extra, field, message] of cases) {
    const refused = await refusal(client.submit(payment(extra), `bad-${field}-${Math.random()}`));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(field);
    expect(JSON.stringify(refused.body)).toMatch(message);
  }
  const batch = await refusal(
    client.submitBatch({ items: [payment({ validUntil: inSeconds(60) })] }, 'bad-batch'),
  );
  expect(JSON.stringify(batch.body)).toMatch(/takes no validUntil/);
  expect(Number(await intentCount())).toBe(before);
});

it('holds a payment back until its notBefore with nothing held, then pays it', async () => {
  const client = api.as(tenantKey);
  const notBefore = inSeconds(4);
  const validUntil = inSeconds(600);
  const submitted = (await client.submit(payment({ notBefore, validUntil }), 'later-1')).body;
  expect(submitted).toMatchObject({ status: 'authorized', notBefore, validUntil });
  // Waiting: nothing held, nothing signed.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect((await getIntent(world.database.kysely, submitted.id)).status).toBe('authorized');
  expect(await tenantBalance(world.database.kysely, 'timely', world.nativeBook)).toMatchObject({
    held: 0n,
  });
  await waitFor(
    async () => (await getIntent(world.database.kysely, submitted.id)).status === 'confirmed',
    'the held-back payment confirmed',
    60_000,
  );
  const [attempt] = await listAttempts(world.database.kysely, submitted.id);
  expect(attempt!.createdAt.getTime()).toBeGreaterThanOrEqual(Date.parse(notBefore));
  // The same key and body again is the same intent, deadlines included; other deadlines are not.
  expect((await client.submit(payment({ notBefore, validUntil }), 'later-1')).status).toBe(200);
  const reused = await refusal(client.submit(payment({ validUntil }), 'later-1'));
  expect(reused.body.code).toBe('idempotency_key_reused');
});

it('ends a payment whose send cannot go before its validUntil expired: nothing signed, its hold released', async () => {
  const client = api.as(tenantKey);
  const before = await tenantBalance(world.database.kysely, 'timely', world.nativeBook);
  // The only RPC endpoint answers 503: the send step retries, and its deadline passes.
  world.proxy!.failWith({ kind: 'http-status', status: 503 });
  const submitted = (await client.submit(payment({ validUntil: inSeconds(6) }), 'soon-1')).body;
  try {
    await waitFor(
      async () =>
        (await getIntent(world.database.kysely, submitted.id)).status === IntentStatus.expired,
      'the payment expired',
      60_000,
    );
  } finally {
    world.proxy!.failWith(undefined);
  }
  const intent = await getIntent(world.database.kysely, submitted.id);
  expect(intent).toMatchObject({ reasonCode: 'deadline_passed', txHash: null, nonce: null });
  expect(await listAttempts(world.database.kysely, submitted.id)).toEqual([]);
  expect(await tenantBalance(world.database.kysely, 'timely', world.nativeBook)).toEqual(before);
  await expectBooksBalanced(world.database);
});

it('sent, unmined past its validUntil, in review: the payment is not sent again, but an operator’s cancel is, and takes the nonce', async () => {
  const request = parseNewIntent({
    tenantId: 'timely',
    ...payment({ validUntil: inSeconds(3) }),
  });
  const { intent, handle } = await intentWaitingInReview(
    world,
    { client: api.client, taskQueue: api.taskQueue },
    request,
    5000,
  );
  try {
    expect(Date.now()).toBeGreaterThan(intent.validUntil!.getTime());
    const operator = api.as(operatorKey);
    const retry = await refusal(operator.review(intent.id, 'retry', { note: 'try again' }));
    expect(retry.body).toMatchObject({ code: 'review_refused' });
    expect(JSON.stringify(retry.body)).toMatch(/past_deadline.*|validUntil .* has passed/);
    await operator.review(intent.id, 'cancel', { note: 'past its deadline' });
    // Sent (the step moves it on to confirming), it replaces the payment in the node's pool.
    await waitFor(
      async () =>
        (await listAttempts(world.database.kysely, intent.id)).some((a) => a.cause === 'cancel') &&
        (await getIntent(world.database.kysely, intent.id)).status === 'confirming',
      'the cancel sent',
      30_000,
    );
    await world.testClient.mine({ blocks: 1 });
    await world.testClient.setAutomine(true);
    const outcome = await handle.result();
    expect(outcome).toMatchObject({ status: 'failed', reasonCode: 'cancelled_on_chain' });
  } finally {
    await world.testClient.setAutomine(true);
  }
  expect(await tenantBalance(world.database.kysely, 'timely', world.nativeBook)).toMatchObject({
    held: 0n,
  });
});

describe("a batch's deadlines, carried by its items", () => {
  const recipients = [
    '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
    '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
  ] as const;
  const items = (count: number) => recipients.slice(0, count).map((to) => ({ ...payment(), to }));
  const ended = async (id: string) => {
    const batch = await api.as(tenantKey).getBatch(id);
    return batch.status === 'completed' ? batch : undefined;
  };

  it('holds every item back until notBefore, then pays them', async () => {
    const notBefore = inSeconds(4);
    const submitted = await api
      .as(tenantKey)
      .submitBatch({ items: items(2), concurrency: 2, notBefore }, 'batch-later-1');
    expect(submitted.body).toMatchObject({ notBefore, validUntil: null });
    await waitFor(async () => (await ended(submitted.body.id)) !== undefined, 'the batch', 60_000);
    expect((await ended(submitted.body.id))!.counts).toMatchObject({ confirmed: 2 });
    for (const result of await api.as(tenantKey).batchResults(submitted.body.id)) {
      const [attempt] = await listAttempts(world.database.kysely, result.intentId!);
      expect(attempt!.createdAt.getTime()).toBeGreaterThanOrEqual(Date.parse(notBefore));
    }
  });

  it('past its validUntil, an unsigned item expires and the items not yet admitted are refused', async () => {
    const before = await tenantBalance(world.database.kysely, 'timely', world.nativeBook);
    world.proxy!.failWith({ kind: 'http-status', status: 503 });
    const submitted = await api
      .as(tenantKey)
      .submitBatch({ items: items(3), concurrency: 1, validUntil: inSeconds(5) }, 'batch-soon-1');
    try {
      await waitFor(
        async () => (await ended(submitted.body.id)) !== undefined,
        'the batch',
        60_000,
      );
    } finally {
      world.proxy!.failWith(undefined);
    }
    expect((await ended(submitted.body.id))!.counts).toMatchObject({ expired: 1, rejected: 2 });
    const results = await api.as(tenantKey).batchResults(submitted.body.id);
    expect(results.map((result) => result.status)).toEqual(['expired', 'rejected', 'rejected']);
    expect(results[0]).toMatchObject({ reasonCode: 'deadline_passed' });
    expect(results[1]!.reason).toMatch(/validUntil .* has already passed/);
    expect(await tenantBalance(world.database.kysely, 'timely', world.nativeBook)).toEqual(before);
  });
});

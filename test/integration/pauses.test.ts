import { parseEther } from 'viem';
import { waitFor } from '../harness/stack/wait-for';
import { getIntent } from '../../store/intents';
import { createTenant, deposit, tenantBalance } from '../../store/ledger';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import {
  apiRefusal as refusal,
  createKeys,
  startApiWithoutWorkers,
  type ApiUnderTest,
} from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

// An operator's pause on a real dev server, database and chain: a paused tenant's intents are
// admitted and wait with nothing held while another tenant is paid, then go once resumed; a
// pause that refuses admission turns new intents away and writes nothing.

const world = useWorld({ tenants: {} });
let api: ApiUnderTest;
let relayer: RelayerProcess;
let keys: Record<'stopped' | 'going' | 'operator', string>;

beforeAll(async () => {
  for (const tenant of ['stopped', 'going']) {
    await createTenant(world.database, { id: tenant, name: tenant }, new Date());
    await deposit(world.database, tenant, parseEther('10'), new Date(), world.nativeBook);
  }
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 10 });
  keys = await createKeys(world, ['stopped', 'going']);
  relayer = await startRelayerProcess(world.config({ TASK_QUEUE: api.taskQueue }));
});
world.onStop(async () => {
  await relayer?.stop();
  await api?.close();
});

const payment = () => ({
  chainId: world.anvil.chainId,
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' as const,
  amount: parseEther('0.1').toString(),
});
const statusOf = async (id: string) => (await getIntent(world.database.kysely, id)).status;
/** The workers read the pauses in force every second. */
const workersSeeIt = () => new Promise((resolve) => setTimeout(resolve, 1500));

it('refuses a pause that names the wrong target, or asked with a tenant key', async () => {
  const operator = api.as(keys.operator);
  const cases = [
    [{ scope: 'tenant', note: 'x' }, /a tenant pause names its tenantId/],
    [{ scope: 'relayer', chainId: 1, note: 'x' }, /a relayer pause takes no chainId/],
    [{ scope: 'chain', chainId: 999_999, note: 'x' }, /999999/],
    [{ scope: 'tenant', tenantId: 'nobody', note: 'x' }, /unknown tenant/],
    [{ scope: 'relayer', note: '' }, /note is required/],
    [{ scope: 'relayer', note: '  ' }, /note is required \(not blank\)/],
  ] as const;
  for (const [body, message] of cases) {
    const refused = await refusal(operator.pause(body as never));
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(refused.body)).toMatch(message);
  }
  expect((await refusal(api.as(keys.going).pause({ scope: 'relayer', note: 'mine' }))).status).toBe(
    403,
  );
  expect(await operator.pauses(true)).toEqual([]);
});

it('holds a paused tenant back with nothing held while another is paid; resumed, it is paid', async () => {
  const operator = api.as(keys.operator);
  const paused = await operator.pause({ scope: 'tenant', tenantId: 'stopped', note: 'incident 7' });
  expect(paused.status).toBe(201);
  expect(
    (await operator.pause({ scope: 'tenant', tenantId: 'stopped', note: 'again' })).body.id,
  ).toBe(paused.body.id);
  await workersSeeIt();
  const held = (await api.as(keys.stopped).submit(payment(), 'held-1')).body;
  const other = (await api.as(keys.going).submit(payment(), 'other-1')).body;
  await waitFor(async () => (await statusOf(other.id)) === 'confirmed', 'the other tenant paid');
  expect(await statusOf(held.id)).toBe('authorized');
  expect(await tenantBalance(world.database.kysely, 'stopped', world.nativeBook)).toMatchObject({
    held: 0n,
  });
  const readiness = await api.as().call<{ ready: boolean; warnings: string[] }>('GET', '/readyz');
  expect(readiness.body.ready).toBe(true);
  expect(readiness.body.warnings.join('\n')).toMatch(/paused: tenant stopped since .*incident 7/);
  const metrics = (await api.as().call<string>('GET', '/metrics')).body;
  expect(metrics).toContain('relayer_paused{scope="tenant",target="stopped"} 1');

  const resumed = await operator.resume(paused.body.id, 'fixed');
  expect(resumed).toMatchObject({ resumeNote: 'fixed', resumedAt: expect.any(String) });
  // Told by its resume signal: well before the five-minute recheck.
  await waitFor(async () => (await statusOf(held.id)) === 'confirmed', 'resumed and paid', 30_000);
  expect(await operator.pauses()).toEqual([]);
  expect((await operator.pauses(true)).map((pause) => pause.id)).toEqual([paused.body.id]);
  expect((await api.as().call<string>('GET', '/metrics')).body).toContain(
    'relayer_paused{scope="tenant",target="stopped"} 0',
  );
  expect((await refusal(operator.resume(paused.body.id))).status).toBe(404);
  await expectBooksBalanced(world.database);
});

it('refuses new intents on a chain paused with refuseAdmission, writing nothing', async () => {
  const operator = api.as(keys.operator);
  const { body: chainPause } = await operator.pause({
    scope: 'chain',
    chainId: world.anvil.chainId,
    note: 'node upgrade',
    refuseAdmission: true,
  });
  try {
    const refused = await refusal(api.as(keys.going).submit(payment(), 'refused-1'));
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'paused' });
    expect(JSON.stringify(refused.body)).toContain('node upgrade');
    const written = await world.database.kysely
      .selectFrom('intents')
      .select('id')
      .where('idempotency_key', '=', 'refused-1')
      .execute();
    expect(written).toEqual([]);
  } finally {
    await operator.resume(chainPause.id);
  }
  expect((await api.as(keys.going).submit(payment(), 'refused-1')).status).toBe(202);
});

it('turns a pause that admits into one that refuses when asked again so, keeping both notes; admitting again is a resume', async () => {
  const operator = api.as(keys.operator);
  const admitting = await operator.pause({ scope: 'tenant', tenantId: 'going', note: 'look only' });
  const refusing = await operator.pause({
    scope: 'tenant',
    tenantId: 'going',
    note: 'incident 8: stop new ones too',
    refuseAdmission: true,
  });
  try {
    expect(refusing.status).toBe(201);
    expect(refusing.body).toMatchObject({ refuseAdmission: true, replaces: admitting.body.id });
    const refused = await refusal(api.as(keys.going).submit(payment(), 'after-upgrade'));
    expect(refused).toMatchObject({ status: 503, body: { code: 'paused' } });
    const history = await operator.pauses(true);
    expect(history.find((pause) => pause.id === admitting.body.id)).toMatchObject({
      note: 'look only',
      resumeNote: `replaced by ${refusing.body.id}, refusing new intents: incident 8: stop new ones too`,
    });
    const downgrade = await refusal(
      operator.pause({ scope: 'tenant', tenantId: 'going', note: 'admit again' }),
    );
    expect(downgrade).toMatchObject({ status: 409, body: { code: 'pause_conflict' } });
    expect(downgrade.message).toMatch(/resume it and pause again without refuseAdmission/);
    expect((await operator.pauses()).map((pause) => pause.id)).toEqual([refusing.body.id]);
  } finally {
    await operator.resume(refusing.body.id);
  }
});

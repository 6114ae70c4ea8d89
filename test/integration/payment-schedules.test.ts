import { randomUUID } from 'node:crypto';
import { parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ScheduleBody, ScheduleView } from '../../cli/api-client/schedules';
import { waitFor } from '../harness/stack/wait-for';
import { temporalScheduleId } from '../../domain/payment-schedule';
import { getIntent } from '../../store/intents';
import { createTenant, deposit } from '../../store/ledger';
import { occurrencesOf, recordOccurrence } from '../../store/payment-schedules';
import {
  apiRefusal as refusal,
  createKeys,
  startApiWithoutWorkers,
  type ApiUnderTest,
} from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';
import { createActivities } from '../../activities';
import { systemClock } from '../../activities/dependencies';
import { runActivity } from '../harness/run-activity';
import { startTestThrottle } from '../harness/test-throttle';

// Payment schedules on the dev server (the time-skipping server has no Schedules), a real
// database and chain, and worker processes: occurrences by trigger and by backfill, each paid
// once, also when the same range is backfilled again and across a worker killed mid-way.

const world = useWorld({ tenants: {} });
let api: ApiUnderTest;
let keys: Record<'payer' | 'poor' | 'held' | 'operator', string>;

beforeAll(async () => {
  for (const tenant of ['payer', 'held']) {
    await createTenant(world.database, { id: tenant, name: tenant }, new Date());
    await deposit(world.database, tenant, parseEther('10'), new Date(), world.nativeBook);
  }
  await createTenant(world.database, { id: 'poor', name: 'poor' }, new Date());
  api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 20 });
  keys = await createKeys(world, ['payer', 'poor', 'held']);
});
world.onStop(async () => {
  await api?.close();
});

const amount = parseEther('0.01');
const newRecipient = (): Hex => privateKeyToAccount(generatePrivateKey()).address;
const scheduleBody = (to: Hex, timing: Partial<ScheduleBody> = { every: '1d' }): ScheduleBody => ({
  payment: { chainId: world.anvil.chainId, to, amount: amount.toString() },
  ...timing,
});
const workers = () => world.spawnWorkers(1, { TASK_QUEUE: api.taskQueue });
const temporalSchedule = (id: string) => api.client.schedule.getHandle(temporalScheduleId(id));
const occurrences = (id: string) => occurrencesOf(world.database.kysely, id, 100);
const balanceOf = (address: Hex) => world.testClient.getBalance({ address });

/** Waits until `count` occurrences are recorded and every admitted one's intent is confirmed. */
async function settled(id: string, count: number) {
  const db = world.database.kysely;
  await waitFor(async () => {
    const seen = await occurrences(id);
    if (seen.length < count) return false;
    for (const { intentId } of seen) {
      if (intentId !== null && (await getIntent(db, intentId)).status !== 'confirmed') return false;
    }
    return true;
  }, `${count} occurrences of ${id} settled`);
  return occurrences(id);
}

async function create(body: ScheduleBody, apiKey = keys.payer): Promise<ScheduleView> {
  const made = await api.as(apiKey).createSchedule(body, randomUUID());
  expect(made.status).toBe(201);
  return made.body;
}

/** Tenant `held` paused by an operator, refusing new intents; resolves to the pause's id. */
async function refuseHeldTenant(note: string): Promise<string> {
  const { body } = await api
    .as(keys.operator)
    .pause({ scope: 'tenant', tenantId: 'held', note, refuseAdmission: true });
  return body.id;
}

/** Runs `use` with the admission step of scheduled payments, on this world's parts. */
async function withAdmitStep<T>(
  use: (admit: ReturnType<typeof createActivities>['admitScheduledPayment']) => Promise<T>,
): Promise<T> {
  const throttle = await startTestThrottle();
  try {
    const { admitScheduledPayment } = createActivities({
      db: world.database,
      chains: world.chains,
      throttle,
      clock: systemClock,
      permitReleaseQueue: 'q',
    });
    return await use(admitScheduledPayment);
  } finally {
    await throttle.close();
  }
}

it('refuses a schedule that is wrong, naming the field, and writes nothing', async () => {
  const to = newRecipient();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{}, /give every \(a span\) or cron/],
    [{ every: '1d', cron: '0 9 1 * *' }, /exactly one of them/],
    [{ every: '30s' }, /every must be a whole number of minutes, hours or days/],
    [{ cron: '0 9 1 *' }, /cron must be five fields/],
    [{ every: '1d', timezone: 'Mars/Olympus' }, /timezone is not a known IANA time zone/],
    [{ every: '1d', catchupWindow: '8d' }, /catchupWindow must be from 1 minutes to 7 days/],
    [{ every: '1d', startAt: '2027-02-01T00:00:00Z', endAt: '2027-01-01T00:00:00Z' }, /endAt/],
    [{ every: '1d', startAt: '2027-02-01' }, /startAt must be an ISO 8601 time with its offset/],
    [{ every: '1d', endAt: '2026-01-01T00:00:00Z' }, /endAt 2026-01-01T00:00:00Z has passed/],
    [{ every: '1d', timezone: 'Europe/Berlin' }, /timezone is for cron: every counts from startAt/],
  ];
  for (const [timing, message] of cases) {
    const refused = await refusal(api.as(keys.payer).createSchedule(scheduleBody(to, timing), 'k'));
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(message);
  }
  const otherChain = { ...scheduleBody(to), payment: { chainId: 999_999, to, amount: '1' } };
  expect((await refusal(api.as(keys.payer).createSchedule(otherChain, 'k'))).message).toMatch(
    /999999/,
  );
  const unknownAsset = scheduleBody(to);
  unknownAsset.payment.asset = 'NOPE';
  expect((await refusal(api.as(keys.payer).createSchedule(unknownAsset, 'k'))).status).toBe(422);
  expect((await refusal(api.as(keys.operator).createSchedule(scheduleBody(to), 'k'))).status).toBe(
    403,
  );
  expect(await api.as(keys.payer).schedules()).toEqual([]);
});

it('is the same schedule for the same key and body, refused with another; shows what comes', async () => {
  const to = newRecipient();
  const key = randomUUID();
  const first = await api.as(keys.payer).createSchedule(scheduleBody(to), key);
  expect(first.status).toBe(201);
  const again = await api.as(keys.payer).createSchedule(scheduleBody(to), key);
  expect(again).toMatchObject({ status: 200, body: { id: first.body.id } });
  const other = await refusal(api.as(keys.payer).createSchedule(scheduleBody(newRecipient()), key));
  expect(other).toMatchObject({ status: 422, body: { code: 'idempotency_key_reused' } });

  const shown = await api.as(keys.payer).getSchedule(first.body.id);
  expect(shown).toMatchObject({
    payment: { amount: amount.toString(), decimalAmount: '0.01' },
    every: '1d',
    timezone: 'UTC',
    catchupWindow: '1h',
    occurrences: [],
  });
  // Every day from midnight UTC: the next occurrence is the coming midnight.
  const midnight = new Date();
  midnight.setUTCHours(24, 0, 0, 0);
  expect(shown.nextTimes![0]).toBe(midnight.toISOString());
  expect((await temporalSchedule(first.body.id).describe()).state.paused).toBe(false);
  expect((await refusal(api.as(keys.poor).getSchedule(first.body.id))).status).toBe(404);
  await api.as(keys.payer).deleteSchedule(first.body.id);
  // Its key does not bring a deleted schedule back, nor show it as active.
  const deleted = await refusal(api.as(keys.payer).createSchedule(scheduleBody(to), key));
  expect(deleted.status).toBe(400);
  expect(deleted.message).toMatch(/deleted since: send a new key/);
});

it('pays each occurrence once: by trigger, by backfill, and a range backfilled twice', async () => {
  await workers();
  const to = newRecipient();
  const schedule = await create(scheduleBody(to));
  await temporalSchedule(schedule.id).trigger();
  await settled(schedule.id, 1);
  // Three midnights fall inside this range; asking twice changes nothing.
  const range = { from: '2026-11-01T12:00:00Z', to: '2026-11-04T12:00:00Z', beforeStart: true };
  await api.as(keys.payer).backfillSchedule(schedule.id, range);
  await api.as(keys.payer).backfillSchedule(schedule.id, range);
  const seen = await settled(schedule.id, 4);
  await new Promise((resolve) => setTimeout(resolve, 2000)); // a second backfill's late runs
  expect((await occurrences(schedule.id)).length).toBe(4);
  expect(seen.filter((o) => o.occurrenceAt.toISOString().startsWith('2026-11-0'))).toHaveLength(3);
  expect(seen.every((occurrence) => occurrence.outcome === 'admitted')).toBe(true);
  expect(new Set(seen.map((occurrence) => occurrence.intentId)).size).toBe(4);
  expect(await balanceOf(to)).toBe(4n * amount);
  await expectBooksBalanced(world.database);
});

it("copies its reference and metadata to each occurrence's intent", async () => {
  await workers();
  const body = scheduleBody(newRecipient());
  const marks = { reference: 'rent-flat-3', metadata: { lease: 'L-2026-3', unit: '3' } };
  const schedule = await create({ ...body, payment: { ...body.payment, ...marks } });
  expect(schedule.payment).toMatchObject(marks);
  await temporalSchedule(schedule.id).trigger();
  const [occurrence] = await settled(schedule.id, 1);
  const intent = await getIntent(world.database.kysely, occurrence!.intentId!);
  expect([intent.reference, intent.metadata]).toEqual([marks.reference, marks.metadata]);
  await api.as(keys.payer).deleteSchedule(schedule.id);
});

it('admits an occurrence run three times at once as one intent, recorded once', async () => {
  const schedule = await create(scheduleBody(newRecipient()));
  const occurrence = {
    scheduleId: schedule.id,
    occurrenceAt: Date.parse('2026-11-20T00:00:00Z'),
  };
  const runs = await withAdmitStep((admit) =>
    Promise.all([1, 2, 3].map(() => runActivity(admit, occurrence))),
  );
  expect(runs.map((run) => run.outcome)).toEqual(['admitted', 'admitted', 'admitted']);
  expect(new Set(runs.map((run) => run.intentId)).size).toBe(1);
  expect(await occurrences(schedule.id)).toHaveLength(1);
  await expect(getIntent(world.database.kysely, runs[0]!.intentId!)).resolves.toMatchObject({
    idempotencyKey: 'schedule:' + schedule.id + ':2026-11-20T00:00:00.000Z',
  });
  await api.as(keys.payer).deleteSchedule(schedule.id);
});

it('pays every occurrence once across a worker killed mid-way', async () => {
  const [first] = await workers();
  const to = newRecipient();
  const schedule = await create(scheduleBody(to, { every: '1h' }));
  await api.as(keys.payer).backfillSchedule(schedule.id, {
    from: '2026-11-10T00:30:00Z',
    to: '2026-11-10T06:30:00Z',
    beforeStart: true,
  });
  await waitFor(async () => (await occurrences(schedule.id)).length >= 2, 'two occurrences');
  first!.signal('SIGKILL');
  await first!.exited;
  await workers();
  const seen = await settled(schedule.id, 6);
  expect(new Set(seen.map((occurrence) => occurrence.intentId)).size).toBe(6);
  expect(await balanceOf(to)).toBe(6n * amount);
});

it('skips an occurrence of a paused schedule; one it cannot pay is recorded as refused', async () => {
  await workers();
  const paused = await create(scheduleBody(newRecipient()));
  expect((await api.as(keys.payer).pauseSchedule(paused.id, 'holiday')).state).toBe('paused');
  expect((await temporalSchedule(paused.id).describe()).state).toMatchObject({ paused: true });
  await temporalSchedule(paused.id).trigger();
  const [skipped] = await settled(paused.id, 1);
  expect(skipped).toMatchObject({ outcome: 'skipped', intentId: null });
  expect((await api.as(keys.payer).resumeSchedule(paused.id)).state).toBe('active');

  const unfunded = await create(scheduleBody(newRecipient()), keys.poor);
  await temporalSchedule(unfunded.id).trigger();
  const [refused] = await settled(unfunded.id, 1);
  expect(refused).toMatchObject({ outcome: 'rejected', code: 'no_account', intentId: null });
  const shown = await api.as(keys.operator).getSchedule(unfunded.id);
  expect(shown.occurrences).toEqual([expect.objectContaining({ code: 'no_account' })]);

  await api.as(keys.poor).deleteSchedule(unfunded.id);
  expect((await refusal(api.as(keys.poor).getSchedule(unfunded.id))).status).toBe(404);
  await expect(temporalSchedule(unfunded.id).describe()).rejects.toThrow(/not found/i);
});

it('takes decimalAmount, converted by the asset; shows a pause note while paused', async () => {
  const body = scheduleBody(newRecipient());
  const { amount: given, ...payment } = body.payment;
  void given;
  const made = await create({ ...body, payment: { ...payment, decimalAmount: '0.25' } });
  expect(made.payment).toMatchObject({
    amount: parseEther('0.25').toString(),
    decimalAmount: '0.25',
  });
  const both = scheduleBody(newRecipient());
  both.payment.decimalAmount = '1';
  expect((await refusal(api.as(keys.payer).createSchedule(both, randomUUID()))).message).toMatch(
    /give amount \(base units\) or decimalAmount, exactly one of them/,
  );
  expect((await api.as(keys.payer).pauseSchedule(made.id, 'on leave')).pauseNote).toBe('on leave');
  expect((await api.as(keys.payer).getSchedule(made.id)).pauseNote).toBe('on leave');
  expect((await api.as(keys.payer).resumeSchedule(made.id)).pauseNote).toBeNull();
  await api.as(keys.payer).deleteSchedule(made.id);
});

it('pays an occurrence refused by a tenant pause once the pause is lifted, within its window', async () => {
  await workers();
  const to = newRecipient();
  const schedule = await create(scheduleBody(to), keys.held);
  const pauseId = await refuseHeldTenant('incident 9');
  await temporalSchedule(schedule.id).trigger();
  // Refused while paused: tried again by the step's retry policy, nothing recorded meanwhile.
  await waitFor(async () => {
    for await (const run of api.client.workflow.list({
      query: `TemporalScheduledById = '${temporalScheduleId(schedule.id)}'`,
    })) {
      const { raw } = await api.client.workflow.getHandle(run.workflowId, run.runId).describe();
      const attempt = raw.pendingActivities?.[0]?.attempt ?? 0;
      if (attempt >= 2) return true;
    }
    return false;
  }, 'the refused occurrence tried again');
  expect(await occurrences(schedule.id)).toEqual([]);
  await api.as(keys.operator).resume(pauseId, 'over');
  const [paid] = await settled(schedule.id, 1);
  expect(paid).toMatchObject({ outcome: 'admitted' });
  expect(await balanceOf(to)).toBe(amount);
  await api.as(keys.held).deleteSchedule(schedule.id);
});

it('records an occurrence missed past its window, then a backfill pays it once and says what each became', async () => {
  await workers();
  const to = newRecipient();
  const schedule = await create(scheduleBody(to), keys.held);
  const pauseId = await refuseHeldTenant('incident 10');
  try {
    // Its window (1 h) ended long ago: refused for a pause, it is missed, not retried.
    const missed = await withAdmitStep((admit) =>
      runActivity(admit, {
        scheduleId: schedule.id,
        occurrenceAt: Date.parse('2026-11-20T00:00:00Z'),
      }),
    );
    expect(missed).toMatchObject({ outcome: 'missed', code: 'paused', intentId: null });
  } finally {
    await api.as(keys.operator).resume(pauseId);
  }
  // One rejected for good before: a backfill leaves it so and says so.
  await recordOccurrence(world.database.kysely, {
    scheduleId: schedule.id,
    occurrenceAt: new Date('2026-11-21T00:00:00Z'),
    outcome: 'rejected',
    intentId: null,
    code: 'policy_violation',
    message: 'over the daily limit',
    recordedAt: new Date(),
  });
  const range = { from: '2026-11-19T12:00:00Z', to: '2026-11-22T12:00:00Z' };
  const before = await refusal(api.as(keys.held).backfillSchedule(schedule.id, range));
  expect(before.status).toBe(400);
  expect(before.message).toMatch(/the schedule starts at .*\(its creation\): from is before it/);
  expect(await occurrences(schedule.id)).toHaveLength(2);

  const first = await api
    .as(keys.held)
    .backfillSchedule(schedule.id, { ...range, beforeStart: true });
  expect(first.counts).toEqual({
    admitted: 2,
    alreadyAdmitted: 0,
    rejected: 1,
    skipped: 0,
    missed: 0,
    pending: 0,
  });
  expect(first.occurrences.map((o) => [o.occurrenceAt, o.outcome, o.ranNow])).toEqual([
    ['2026-11-20T00:00:00.000Z', 'admitted', true],
    ['2026-11-21T00:00:00.000Z', 'rejected', false],
    ['2026-11-22T00:00:00.000Z', 'admitted', true],
  ]);
  const again = await api
    .as(keys.held)
    .backfillSchedule(schedule.id, { ...range, beforeStart: true });
  expect(again.counts).toMatchObject({ admitted: 0, alreadyAdmitted: 2, rejected: 1 });
  await settled(schedule.id, 3);
  expect(await balanceOf(to)).toBe(2n * amount);
  await expectBooksBalanced(world.database);
});

it('admits a missed occurrence run again three times at once as one intent, its record replaced once', async () => {
  const schedule = await create(scheduleBody(newRecipient()), keys.held);
  const occurrence = { scheduleId: schedule.id, occurrenceAt: Date.parse('2026-11-25T00:00:00Z') };
  const pauseId = await refuseHeldTenant('incident 11');
  try {
    expect(await withAdmitStep((admit) => runActivity(admit, occurrence))).toMatchObject({
      outcome: 'missed',
    });
  } finally {
    await api.as(keys.operator).resume(pauseId);
  }
  // A backfill's run and a retry of it at once, each with a fresh window from now.
  const again = { ...occurrence, runStartedAt: Date.now() };
  const runs = await withAdmitStep((admit) =>
    Promise.all([1, 2, 3].map(() => runActivity(admit, again))),
  );
  expect(runs.map((run) => run.outcome)).toEqual(['admitted', 'admitted', 'admitted']);
  expect(new Set(runs.map((run) => run.intentId)).size).toBe(1);
  const recorded = await occurrences(schedule.id);
  expect(recorded).toEqual([expect.objectContaining({ outcome: 'admitted', code: null })]);
  const intents = await world.database.kysely
    .selectFrom('intents')
    .select('id')
    .where('idempotency_key', '=', `schedule:${schedule.id}:2026-11-25T00:00:00.000Z`)
    .execute();
  expect(intents).toHaveLength(1);
  await api.as(keys.held).deleteSchedule(schedule.id);
});

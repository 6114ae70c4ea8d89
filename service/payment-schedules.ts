import { refuseIfKeyExpired } from '../operations/idempotency-keys';
import { createHash } from 'node:crypto';
import {
  IntentConflictError,
  InvalidIntentError,
  ScheduleNotFoundError,
  UnknownAssetError,
  UnknownChainError,
  UnknownTenantError,
} from '../domain/errors';
import { ScheduleState, type ScheduleBody } from '../domain/payment-schedule';
import { IdPrefix, newId } from '../operations/new-id';
import { resolveAsset } from '../store/assets';
import { baseUnitsOfBody, decimalsOf } from './assets';
import {
  findSchedule,
  insertSchedule,
  listSchedules,
  occurrencesOf,
  setScheduleState,
  type ScheduleOccurrence,
  type StoredSchedule,
} from '../store/payment-schedules';
import { findTenant } from '../store/tenants';
import { paymentScheduleTimer } from '../client/payment-schedules';
import { actorOf, canSee, type Caller } from './caller';
import type { ServiceDependencies } from './dependencies';

export type ScheduleDeps = Pick<
  ServiceDependencies,
  'database' | 'client' | 'chains' | 'taskQueue' | 'clock'
> &
  Partial<Pick<ServiceDependencies, 'admission'>>;

export type { StoredSchedule };

export interface ScheduleDetail {
  schedule: StoredSchedule;
  /** The next occurrences' times, as Temporal computes them (none once paused or ended). */
  nextTimes: Date[];
  /** The latest occurrences and what each became, latest first. */
  occurrences: ScheduleOccurrence[];
}

const fingerprint = (body: ScheduleBody): string =>
  createHash('sha256')
    .update(
      JSON.stringify({ ...body, payment: { ...body.payment, amount: `${body.payment.amount}` } }),
    )
    .digest('hex');

export const timerOf = (deps: Pick<ScheduleDeps, 'client' | 'taskQueue'>) =>
  paymentScheduleTimer(deps.client, deps.taskQueue);

/**
 * Records a tenant's recurring payment and creates the Temporal Schedule that times it. The
 * payment's chain and asset are checked now (each occurrence passes admission on its own). The
 * same Idempotency-Key with the same request returns the same schedule, and makes sure its
 * Temporal Schedule exists (a create that stopped between the two); with another, it is refused.
 */
export async function createSchedule(
  deps: ScheduleDeps,
  caller: Extract<Caller, { role: 'tenant' }>,
  body: ScheduleBody,
  idempotencyKey: string,
): Promise<{ schedule: StoredSchedule; created: boolean }> {
  const { database, chains } = deps;
  const { tenantId } = caller;
  const now = deps.clock?.() ?? new Date();
  const { chainId, asset } = body.payment;
  if (!chains.chainIds.includes(chainId)) throw new UnknownChainError(chainId, chains.chainIds);
  if (body.endAt && Date.parse(body.endAt) <= now.getTime()) {
    throw new InvalidIntentError(
      [{ field: 'endAt', message: `endAt ${body.endAt} has passed: no occurrence would run` }],
      'schedule',
    );
  }
  const requestSha256 = fingerprint(body);
  // Before the transaction: the asset's decimals are read outside it (one SQLite connection).
  const amount =
    body.payment.amount ?? (await baseUnitsOfBody(database, body.payment, 'payment.decimalAmount'));
  const made = await database.transaction(async (trx) => {
    const existing = await findSchedule(trx, { tenantId, idempotencyKey });
    if (existing) {
      refuseIfKeyExpired({
        key: idempotencyKey,
        firstUsedAt: existing.createdAt,
        ttlMs: deps.admission?.idempotencyKeyTtlMs,
        now,
        usedFor: existing.id,
      });
      if (existing.requestSha256 !== requestSha256) {
        throw new IntentConflictError(existing.id, idempotencyKey);
      }
      if (existing.state === ScheduleState.deleted) {
        throw new InvalidIntentError(
          [
            {
              field: 'Idempotency-Key',
              message: `it created schedule ${existing.id}, deleted since: send a new key to create the schedule again`,
            },
          ],
          'schedule',
        );
      }
      return { schedule: existing, created: false };
    }
    if (!(await findTenant(trx, tenantId))) throw new UnknownTenantError(tenantId);
    if (!(await resolveAsset(trx, chainId, asset))) throw new UnknownAssetError(chainId, asset);
    const scheduleId = newId(IdPrefix.schedule, now.getTime());
    const { payment: asked, note, ...timing } = body;
    const { decimalAmount, ...payment } = asked;
    void decimalAmount;
    const schedule: StoredSchedule = {
      id: scheduleId,
      tenantId,
      payment: { ...payment, amount },
      timing,
      state: ScheduleState.active,
      note: note ?? null,
      createdBy: caller.keyId,
      createdAt: now,
      updatedAt: now,
      pauseNote: null,
      idempotencyKey,
      requestSha256,
    };
    await insertSchedule(trx, schedule);
    return { schedule, created: true };
  });
  await timerOf(deps).ensure(made.schedule);
  return made;
}

/** Schedules with their asset's decimals, to show their amounts in the asset's units. */
export async function withDecimals(
  deps: Pick<ScheduleDeps, 'database'>,
  schedules: readonly StoredSchedule[],
): Promise<{ schedule: StoredSchedule; decimals: number }[]> {
  const known = new Map<string, Promise<number>>();
  return Promise.all(
    schedules.map(async (schedule) => {
      const { chainId, asset } = schedule.payment;
      const key = `${chainId}:${asset}`;
      if (!known.has(key)) known.set(key, decimalsOf(deps.database, chainId, asset));
      return { schedule, decimals: await known.get(key)! };
    }),
  );
}

/** The caller's schedules (an operator's: every tenant's), newest first. */
export const listSchedulesFor = (deps: Pick<ScheduleDeps, 'database'>, caller: Caller) =>
  listSchedules(deps.database.kysely, caller.role === 'tenant' ? caller.tenantId : undefined, 500);

export async function scheduleFor(
  deps: Pick<ScheduleDeps, 'database'>,
  caller: Caller,
  id: string,
) {
  const schedule = await findSchedule(deps.database.kysely, { id });
  if (!schedule || schedule.state === ScheduleState.deleted || !canSee(caller, schedule)) {
    throw new ScheduleNotFoundError(id);
  }
  return schedule;
}

/** A schedule with its next times and its latest occurrences. */
export async function scheduleDetail(
  deps: ScheduleDeps,
  caller: Caller,
  id: string,
): Promise<ScheduleDetail> {
  const schedule = await scheduleFor(deps, caller, id);
  const [nextTimes, occurrences] = await Promise.all([
    schedule.state === ScheduleState.active ? timerOf(deps).nextTimes(id) : [],
    occurrencesOf(deps.database.kysely, id, 50),
  ]);
  return { schedule, nextTimes, occurrences };
}

/**
 * Pauses or resumes a schedule. The row is the authority (an occurrence of a schedule not active
 * is skipped, whatever started it); its Temporal Schedule follows, so none is started meanwhile.
 */
export async function setSchedulePaused(
  deps: ScheduleDeps,
  caller: Caller,
  id: string,
  paused: boolean,
  note: string | null,
): Promise<StoredSchedule> {
  const schedule = await scheduleFor(deps, caller, id);
  const now = deps.clock?.() ?? new Date();
  const state = paused ? ScheduleState.paused : ScheduleState.active;
  await setScheduleState(deps.database.kysely, id, state, now, paused ? note : null);
  const said = `${paused ? 'paused' : 'resumed'} by ${actorOf(caller)}${note ? `: ${note}` : ''}`;
  await (paused ? timerOf(deps).pause(id, said) : timerOf(deps).resume(id, said));
  return { ...schedule, state, updatedAt: now, pauseNote: paused ? note : null };
}

/** Deletes a schedule: no occurrence of it runs again; those already admitted go on. */
export async function deleteSchedule(
  deps: ScheduleDeps,
  caller: Caller,
  id: string,
): Promise<void> {
  await scheduleFor(deps, caller, id);
  await setScheduleState(
    deps.database.kysely,
    id,
    ScheduleState.deleted,
    deps.clock?.() ?? new Date(),
  );
  await timerOf(deps).remove(id);
}

import type { Kysely, Selectable } from 'kysely';
import type {
  PaymentSchedule,
  SchedulePayment,
  ScheduleState,
  ScheduleTiming,
} from '../domain/payment-schedule';
import type { OccurrenceRecord } from '../domain/schedule-occurrence';
import { fromTimestamp, type Schema } from './schema';
import type { PaymentSchedulesTable, ScheduleOccurrencesTable } from './schedule-tables';

export type { OccurrenceOutcome } from './schedule-tables';

export interface StoredSchedule extends PaymentSchedule {
  idempotencyKey: string;
  requestSha256: string;
  /** Why it is paused, as its pause said; null when active or none was given. */
  pauseNote: string | null;
}

/** What an occurrence of a schedule became (domain/schedule-occurrence.ts), with its schedule. */
export interface ScheduleOccurrence extends OccurrenceRecord {
  scheduleId: string;
}

const scheduleFromRow = (row: Selectable<PaymentSchedulesTable>): StoredSchedule => {
  const payment = JSON.parse(row.payment) as Omit<SchedulePayment, 'amount'> & { amount: string };
  return {
    id: row.id,
    tenantId: row.tenant_id,
    payment: { ...payment, amount: BigInt(payment.amount) },
    timing: JSON.parse(row.timing) as ScheduleTiming,
    state: row.state,
    note: row.note,
    pauseNote: row.pause_note ?? null,
    createdBy: row.created_by,
    createdAt: fromTimestamp(row.created_at),
    updatedAt: fromTimestamp(row.updated_at),
    idempotencyKey: row.idempotency_key,
    requestSha256: row.request_sha256,
  };
};

const occurrenceFromRow = (row: Selectable<ScheduleOccurrencesTable>): ScheduleOccurrence => ({
  scheduleId: row.schedule_id,
  occurrenceAt: fromTimestamp(row.occurrence_at),
  outcome: row.outcome,
  intentId: row.intent_id,
  code: row.code,
  message: row.message,
  recordedAt: fromTimestamp(row.recorded_at),
});

export async function insertSchedule(db: Kysely<Schema>, schedule: StoredSchedule): Promise<void> {
  await db
    .insertInto('payment_schedules')
    .values({
      id: schedule.id,
      tenant_id: schedule.tenantId,
      payment: JSON.stringify({ ...schedule.payment, amount: schedule.payment.amount.toString() }),
      timing: JSON.stringify(schedule.timing),
      state: schedule.state,
      note: schedule.note,
      idempotency_key: schedule.idempotencyKey,
      request_sha256: schedule.requestSha256,
      created_by: schedule.createdBy,
      created_at: schedule.createdAt.toISOString(),
      updated_at: schedule.updatedAt.toISOString(),
    })
    .execute();
}

/** By id, or by the tenant's Idempotency-Key; a deleted schedule is found too. */
export async function findSchedule(
  db: Kysely<Schema>,
  by: { id: string } | { tenantId: string; idempotencyKey: string },
): Promise<StoredSchedule | undefined> {
  let query = db.selectFrom('payment_schedules').selectAll();
  query =
    'id' in by
      ? query.where('id', '=', by.id)
      : query.where('tenant_id', '=', by.tenantId).where('idempotency_key', '=', by.idempotencyKey);
  const row = await query.executeTakeFirst();
  return row && scheduleFromRow(row);
}

/** Schedules not deleted, newest first: a tenant's, or (no tenant) every one. */
export async function listSchedules(
  db: Kysely<Schema>,
  tenantId: string | undefined,
  limit: number,
): Promise<StoredSchedule[]> {
  let query = db
    .selectFrom('payment_schedules')
    .selectAll()
    .where('state', '!=', 'deleted')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
  return (await query.execute()).map(scheduleFromRow);
}

/** Moves a schedule to `state`; `pauseNote` is kept while paused and cleared otherwise. */
export async function setScheduleState(
  db: Kysely<Schema>,
  id: string,
  state: ScheduleState,
  now: Date,
  pauseNote: string | null = null,
): Promise<void> {
  await db
    .updateTable('payment_schedules')
    .set({ state, updated_at: now.toISOString(), pause_note: pauseNote })
    .where('id', '=', id)
    .execute();
}

/**
 * Records what an occurrence became. The first record stands, except a `missed` one: a later run
 * of the occurrence (a backfill) records what it became instead.
 */
export async function recordOccurrence(
  db: Kysely<Schema>,
  occurrence: ScheduleOccurrence,
): Promise<void> {
  const values = {
    outcome: occurrence.outcome,
    intent_id: occurrence.intentId,
    code: occurrence.code,
    message: occurrence.message,
    recorded_at: occurrence.recordedAt.toISOString(),
  };
  await db
    .insertInto('schedule_occurrences')
    .values({
      schedule_id: occurrence.scheduleId,
      occurrence_at: occurrence.occurrenceAt.toISOString(),
      ...values,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['schedule_id', 'occurrence_at'])
        .doUpdateSet(values)
        .where('schedule_occurrences.outcome', '=', 'missed'),
    )
    .execute();
}

/** The occurrences recorded between `from` and `to` (both included), in time order. */
export async function occurrencesBetween(
  db: Kysely<Schema>,
  scheduleId: string,
  range: { from: Date; to: Date },
): Promise<ScheduleOccurrence[]> {
  const rows = await db
    .selectFrom('schedule_occurrences')
    .selectAll()
    .where('schedule_id', '=', scheduleId)
    .where('occurrence_at', '>=', range.from.toISOString())
    .where('occurrence_at', '<=', range.to.toISOString())
    .orderBy('occurrence_at')
    .execute();
  return rows.map(occurrenceFromRow);
}

export async function findOccurrence(
  db: Kysely<Schema>,
  scheduleId: string,
  occurrenceAt: Date,
): Promise<ScheduleOccurrence | undefined> {
  const row = await db
    .selectFrom('schedule_occurrences')
    .selectAll()
    .where('schedule_id', '=', scheduleId)
    .where('occurrence_at', '=', occurrenceAt.toISOString())
    .executeTakeFirst();
  return row && occurrenceFromRow(row);
}

/** A schedule's occurrences, latest first. */
export async function occurrencesOf(
  db: Kysely<Schema>,
  scheduleId: string,
  limit: number,
): Promise<ScheduleOccurrence[]> {
  const rows = await db
    .selectFrom('schedule_occurrences')
    .selectAll()
    .where('schedule_id', '=', scheduleId)
    .orderBy('occurrence_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map(occurrenceFromRow);
}

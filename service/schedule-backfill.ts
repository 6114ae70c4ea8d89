import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidIntentError } from '../domain/errors';
import { backfillMaxDays, ScheduleState } from '../domain/payment-schedule';
import {
  backfillReport,
  type BackfillCounts,
  type BackfilledOccurrence,
} from '../domain/schedule-occurrence';
import { occurrencesBetween, type ScheduleOccurrence } from '../store/payment-schedules';
import type { Caller } from './caller';
import { scheduleFor, timerOf, type ScheduleDeps } from './payment-schedules';

export interface BackfillRequest {
  from: Date;
  to: Date;
  /** Also the times before the schedule's start (or its creation): paid only when asked. */
  beforeStart?: boolean;
}

export interface BackfillResult {
  scheduleId: string;
  occurrences: BackfilledOccurrence[];
  counts: BackfillCounts;
}

/** How long the answer waits for the runs it started; those still running are `pending`. */
const answerWithinMs = 10_000;
const lookEveryMs = 250;

const byTime = (records: readonly ScheduleOccurrence[]) =>
  new Map(records.map((record) => [record.occurrenceAt.getTime(), record]));

/**
 * Runs the occurrences that fell between `from` and `to` (a missed payroll after an outage
 * longer than the catch-up window, or occurrences recorded missed): each is admitted once, so a
 * range run again pays nothing new. Answers with what became of each occurrence of the range.
 */
export async function backfillSchedule(
  deps: ScheduleDeps,
  caller: Caller,
  id: string,
  range: BackfillRequest,
): Promise<BackfillResult> {
  const schedule = await scheduleFor(deps, caller, id);
  const now = deps.clock?.() ?? new Date();
  const { startAt } = schedule.timing;
  const starts = new Date(
    Math.max(schedule.createdAt.getTime(), startAt ? Date.parse(startAt) : 0),
  );
  const refusals = [];
  if (range.to.getTime() <= range.from.getTime()) {
    refusals.push({ field: 'to', message: 'to must be after from' });
  }
  if (range.to.getTime() > now.getTime()) {
    refusals.push({
      field: 'to',
      message: 'to is in the future: its occurrences come on their own',
    });
  }
  if (range.to.getTime() - range.from.getTime() > backfillMaxDays * 86_400_000) {
    refusals.push({ field: 'from', message: `a backfill spans at most ${backfillMaxDays} days` });
  }
  if (!range.beforeStart && range.from.getTime() < starts.getTime()) {
    refusals.push({
      field: 'from',
      message: `the schedule starts at ${starts.toISOString()} (its ${startAt && Date.parse(startAt) >= schedule.createdAt.getTime() ? 'startAt' : 'creation'}): from is before it; to pay times before it on purpose, ask with beforeStart: true`,
    });
  }
  if (schedule.state !== ScheduleState.active) {
    refusals.push({ field: 'id', message: `the schedule is ${schedule.state}: resume it first` });
  }
  if (refusals.length > 0) throw new InvalidIntentError(refusals, 'backfill');

  const timer = timerOf(deps);
  const times = await timer.timesBetween(id, range.from, range.to);
  const kysely = deps.database.kysely;
  const before = byTime(await occurrencesBetween(kysely, id, range));
  await timer.backfill(id, range.from, range.to);
  // Until every occurrence of the range is decided, or the answer's time is up (`pending`).
  let report = backfillReport(times, before, before);
  const giveUpAt = Date.now() + answerWithinMs;
  while (report.counts.pending > 0 && Date.now() < giveUpAt) {
    await sleep(lookEveryMs);
    report = backfillReport(times, before, byTime(await occurrencesBetween(kysely, id, range)));
  }
  return { scheduleId: id, ...report };
}

import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError as TemporalScheduleNotFound,
  type Client,
  type ScheduleSpec,
} from '@temporalio/client';
import { msNumberToTs, tsToDate } from '@temporalio/common/lib/time';
import { temporalScheduleId, type PaymentSchedule } from '../domain/payment-schedule';
import type { scheduledPayment } from '../workflows/scheduled-payment';
import { tenantIdKey } from '../workflows/search-attributes';

/**
 * Occurrences run one at a time in their order, none dropped for overlapping: each is a short
 * admission, and named by its time, so one run again pays nothing.
 */
const overlap = 'BUFFER_ALL' as const;

/** When a schedule's payments recur, in Temporal's terms. */
export function scheduleSpecOf({ timing }: Pick<PaymentSchedule, 'timing'>): ScheduleSpec {
  const { every, cron, timezone, startAt, endAt } = timing;
  return {
    // From startAt (when given): Temporal counts intervals from the epoch, the offset moves them.
    ...(every !== undefined && {
      intervals: [{ every, offset: startAt ? Date.parse(startAt) % every : 0 }],
    }),
    ...(cron !== undefined && { cronExpressions: [cron] }),
    timezone,
    ...(startAt && { startAt: new Date(startAt) }),
    ...(endAt && { endAt: new Date(endAt) }),
  };
}

/**
 * The Temporal side of payment schedules: each a Temporal Schedule (`payment-schedule-<id>` in the
 * Web UI) that starts a `scheduledPayment` run per occurrence on the relayer's task queue.
 */
export function paymentScheduleTimer(client: Client, taskQueue: string) {
  const handle = (scheduleId: string) => client.schedule.getHandle(temporalScheduleId(scheduleId));
  return {
    /** Creates its Temporal Schedule; one there already (a retried create) is kept. */
    async ensure(schedule: PaymentSchedule): Promise<void> {
      const args: Parameters<typeof scheduledPayment> = [{ scheduleId: schedule.id }];
      try {
        await client.schedule.create({
          scheduleId: temporalScheduleId(schedule.id),
          spec: scheduleSpecOf(schedule),
          action: {
            type: 'startWorkflow',
            workflowType: 'scheduledPayment',
            workflowId: `scheduled-payment-${schedule.id}`,
            taskQueue,
            args,
          },
          policies: { overlap, catchupWindow: schedule.timing.catchupWindow },
          typedSearchAttributes: [{ key: tenantIdKey, value: schedule.tenantId }],
          state: schedule.note ? { note: schedule.note } : {},
        });
      } catch (error) {
        if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      }
    },
    pause: (scheduleId: string, note: string) => handle(scheduleId).pause(note),
    resume: (scheduleId: string, note: string) => handle(scheduleId).unpause(note),
    /** Deletes its Temporal Schedule; one gone already is fine. */
    async remove(scheduleId: string): Promise<void> {
      await handle(scheduleId)
        .delete()
        .catch((error: unknown) => {
          if (!(error instanceof TemporalScheduleNotFound)) throw error;
        });
    },
    /** Runs the occurrences due between `start` and `end` now, in order. */
    backfill: (scheduleId: string, start: Date, end: Date) =>
      handle(scheduleId).backfill({ start, end, overlap }),
    /** The times the schedule's spec gives between `start` and `end`, as Temporal computes them. */
    async timesBetween(scheduleId: string, start: Date, end: Date): Promise<Date[]> {
      const { startTime } = await client.workflowService.listScheduleMatchingTimes({
        namespace: client.options.namespace,
        scheduleId: temporalScheduleId(scheduleId),
        startTime: msNumberToTs(start.getTime()),
        endTime: msNumberToTs(end.getTime()),
      });
      return (startTime ?? []).map(tsToDate);
    },
    /** The next occurrences' times, as Temporal computes them. */
    async nextTimes(scheduleId: string): Promise<Date[]> {
      try {
        return (await handle(scheduleId).describe()).info.nextActionTimes;
      } catch (error) {
        if (error instanceof TemporalScheduleNotFound) return [];
        throw error;
      }
    },
  };
}

export type PaymentScheduleTimer = ReturnType<typeof paymentScheduleTimer>;

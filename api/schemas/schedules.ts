import { z } from 'zod';
import { isoInstant } from '../../domain/intent-deadlines';
import { ScheduleState, spanOf, type PaymentSchedule } from '../../domain/payment-schedule';
import type { ScheduleDetail } from '../../service/payment-schedules';

/** Payment schedules as the API shows them, and the bodies of their backfill and pause. */

const occurrenceSchema = z.object({
  occurrenceAt: z.string().describe("the occurrence's nominal time"),
  outcome: z.enum(['admitted', 'rejected', 'skipped']),
  intentId: z.string().nullable().describe('the intent it became (admitted)'),
  code: z.string().nullable().describe('the refusal (rejected): a rejection code'),
  message: z.string().nullable(),
});

export const scheduleSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    state: z.enum([ScheduleState.active, ScheduleState.paused]),
    payment: z.object({
      chainId: z.number(),
      from: z.string().optional(),
      to: z.string(),
      asset: z.string(),
      amount: z.string().describe('base units'),
    }),
    every: z.string().optional(),
    cron: z.string().optional(),
    timezone: z.string(),
    startAt: z.string().optional(),
    endAt: z.string().optional(),
    catchupWindow: z.string(),
    validFor: z.string().optional(),
    note: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    nextTimes: z.array(z.string()).optional().describe('the next occurrences (one schedule)'),
    occurrences: z.array(occurrenceSchema).optional().describe('the latest, latest first'),
  })
  .meta({ id: 'PaymentSchedule' });

export const scheduleListSchema = z
  .object({ schedules: z.array(scheduleSchema) })
  .meta({ id: 'PaymentScheduleList' });

export const backfillBodySchema = z.strictObject({
  from: isoInstant('from').transform((value) => new Date(value)),
  to: isoInstant('to').transform((value) => new Date(value)),
});

export const scheduleNoteBodySchema = z
  .strictObject({ note: z.string().max(500).optional() })
  .nullish()
  .describe('why (optional): shown on the Temporal Schedule');

export function scheduleView(
  schedule: PaymentSchedule,
  detail?: Omit<ScheduleDetail, 'schedule'>,
): z.infer<typeof scheduleSchema> {
  const { every, cron, timezone, startAt, endAt, catchupWindow, validFor } = schedule.timing;
  return {
    id: schedule.id,
    tenantId: schedule.tenantId,
    // A deleted schedule is never shown (it is a 404).
    state: schedule.state === ScheduleState.paused ? 'paused' : 'active',
    payment: { ...schedule.payment, amount: schedule.payment.amount.toString() },
    ...(every !== undefined && { every: spanOf(every) }),
    ...(cron !== undefined && { cron }),
    timezone,
    ...(startAt && { startAt }),
    ...(endAt && { endAt }),
    catchupWindow: spanOf(catchupWindow),
    ...(validFor !== undefined && { validFor: spanOf(validFor) }),
    note: schedule.note,
    createdAt: schedule.createdAt.toISOString(),
    updatedAt: schedule.updatedAt.toISOString(),
    ...(detail && {
      nextTimes: detail.nextTimes.map((time) => time.toISOString()),
      occurrences: detail.occurrences.map((occurrence) => ({
        occurrenceAt: occurrence.occurrenceAt.toISOString(),
        outcome: occurrence.outcome,
        intentId: occurrence.intentId,
        code: occurrence.code,
        message: occurrence.message,
      })),
    }),
  };
}

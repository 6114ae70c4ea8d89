import { z } from 'zod';
import { isoInstant } from '../../domain/intent-deadlines';
import { formatUnits } from 'viem';
import { ScheduleState, spanOf } from '../../domain/payment-schedule';
import { occurrenceOutcomes } from '../../domain/schedule-occurrence';
import type { ScheduleDetail, StoredSchedule } from '../../service/payment-schedules';
import type { BackfillResult } from '../../service/schedule-backfill';

/** Payment schedules as the API shows them, and the bodies of their backfill and pause. */

const occurrenceSchema = z.object({
  occurrenceAt: z.string().describe("the occurrence's nominal time"),
  outcome: z.enum(occurrenceOutcomes),
  intentId: z.string().nullable().describe('the intent it became (admitted)'),
  code: z.string().nullable().describe('the refusal (rejected, missed): a rejection code'),
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
      decimalAmount: z.string().describe("the amount in the asset's units, e.g. 2500 (USDC)"),
      reference: z.string().optional().describe("copied to each occurrence's intent"),
      metadata: z
        .record(z.string(), z.string())
        .optional()
        .describe("copied to each occurrence's intent"),
    }),
    every: z.string().optional(),
    cron: z.string().optional(),
    timezone: z.string(),
    startAt: z.string().optional(),
    endAt: z.string().optional(),
    catchupWindow: z.string(),
    validFor: z.string().optional(),
    note: z.string().nullable(),
    pauseNote: z
      .string()
      .nullable()
      .describe('why it is paused, as its pause said (null when active or none was given)'),
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
  beforeStart: z
    .boolean({ error: 'beforeStart must be true or false' })
    .optional()
    .describe("also pay times before the schedule's start or creation (default: refused)"),
});

export const backfillResultSchema = z
  .object({
    scheduleId: z.string(),
    occurrences: z.array(
      z.object({
        occurrenceAt: z.string(),
        outcome: z
          .enum([...occurrenceOutcomes, 'pending'])
          .describe('pending: still running when answered (a refusal that passes is retried)'),
        ranNow: z.boolean().describe('false: an earlier run had decided it (paid or rejected)'),
        intentId: z.string().nullable(),
        code: z.string().nullable(),
        message: z.string().nullable(),
      }),
    ),
    counts: z.object({
      admitted: z.number(),
      alreadyAdmitted: z.number(),
      rejected: z.number(),
      skipped: z.number(),
      missed: z.number(),
      pending: z.number(),
    }),
  })
  .meta({ id: 'ScheduleBackfill' });

export const backfillView = (result: BackfillResult): z.infer<typeof backfillResultSchema> => ({
  ...result,
  occurrences: result.occurrences.map((occurrence) => ({
    ...occurrence,
    occurrenceAt: occurrence.occurrenceAt.toISOString(),
  })),
});

export const scheduleNoteBodySchema = z
  .strictObject({ note: z.string().max(500).optional() })
  .nullish()
  .describe('why (optional): shown on the Temporal Schedule');

export function scheduleView(
  { schedule, decimals }: { schedule: StoredSchedule; decimals: number },
  detail?: Omit<ScheduleDetail, 'schedule'>,
): z.infer<typeof scheduleSchema> {
  const { every, cron, timezone, startAt, endAt, catchupWindow, validFor } = schedule.timing;
  return {
    id: schedule.id,
    tenantId: schedule.tenantId,
    // A deleted schedule is never shown (it is a 404).
    state: schedule.state === ScheduleState.paused ? 'paused' : 'active',
    payment: {
      ...schedule.payment,
      amount: schedule.payment.amount.toString(),
      decimalAmount: formatUnits(schedule.payment.amount, decimals),
    },
    ...(every !== undefined && { every: spanOf(every) }),
    ...(cron !== undefined && { cron }),
    timezone,
    ...(startAt && { startAt }),
    ...(endAt && { endAt }),
    catchupWindow: spanOf(catchupWindow),
    ...(validFor !== undefined && { validFor: spanOf(validFor) }),
    note: schedule.note,
    pauseNote: schedule.state === ScheduleState.paused ? schedule.pauseNote : null,
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

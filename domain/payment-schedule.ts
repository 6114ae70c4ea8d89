import { z } from 'zod';
import { decimalAmountField, newIntentBodySchema } from './intent-request';
import { isoInstant } from './intent-deadlines';

/**
 * A recurring payment: a payment template and when it recurs. Each occurrence is an intent
 * admitted like any other (admission, policies, approvals), named by the schedule and its time
 * (`occurrenceKey`), so an occurrence run twice — a retry, a backfill over it — pays once.
 */
export interface PaymentSchedule {
  id: string;
  tenantId: string;
  payment: SchedulePayment;
  timing: ScheduleTiming;
  state: ScheduleState;
  note: string | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const ScheduleState = { active: 'active', paused: 'paused', deleted: 'deleted' } as const;
export type ScheduleState = (typeof ScheduleState)[keyof typeof ScheduleState];

const unitMs = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90m`, `12h`, `30d`: a whole number of minutes, hours or days, at least `min`, at most `max`. */
const span = (field: string, { min, max }: { min: number; max: number }) =>
  z
    .string({ error: `${field} must be a span string: 90m, 12h, 30d` })
    .regex(/^[1-9]\d{0,5}[mhd]$/, {
      error: `${field} must be a whole number of minutes, hours or days: 90m, 12h, 30d`,
    })
    .transform((value) => Number(value.slice(0, -1)) * unitMs[value.at(-1) as 'm' | 'h' | 'd'])
    .refine((ms) => ms >= min && ms <= max, {
      error: `${field} must be from ${min / 60_000} minutes to ${max / 86_400_000} days`,
    });

const dayMs = unitMs.d;

/** A span in ms as the API takes it: the largest unit that divides it, `1d` rather than `24h`. */
export const spanOf = (ms: number): string =>
  ms % dayMs === 0
    ? `${ms / dayMs}d`
    : ms % unitMs.h === 0
      ? `${ms / unitMs.h}h`
      : `${ms / unitMs.m}m`;

/** Five fields (minute hour day-of-month month day-of-week), as Temporal reads a cron string. */
const cronField = /^(\*|\d{1,2}(-\d{1,2})?)(\/\d{1,2})?(,(\*|\d{1,2}(-\d{1,2})?)(\/\d{1,2})?)*$/;

const timezone = z
  .string({ error: 'timezone must be an IANA time zone name, e.g. "Europe/Berlin"' })
  .refine(
    (name) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: name });
        return true;
      } catch {
        return false;
      }
    },
    { error: 'timezone is not a known IANA time zone name, e.g. "Europe/Berlin" or "UTC"' },
  );

/** What each occurrence pays: a transfer (contract calls are not scheduled). */
export const schedulePaymentSchema = newIntentBodySchema.omit({
  validUntil: true,
  notBefore: true,
});
export type SchedulePayment = z.output<typeof schedulePaymentSchema>;

/** What each occurrence pays, as a tenant writes it: base units or a decimal of the asset. */
const schedulePaymentBodySchema = schedulePaymentSchema
  .extend({
    amount: schedulePaymentSchema.shape.amount.optional(),
    decimalAmount: decimalAmountField.optional(),
  })
  .superRefine((payment, ctx) => {
    if ((payment.amount === undefined) === (payment.decimalAmount === undefined))
      ctx.issues.push({
        code: 'custom',
        message: 'give amount (base units) or decimalAmount, exactly one of them',
        input: payment,
        path: ['amount'],
      });
  });

/** When it recurs, as stored and as Temporal's schedule is made from it (spans in ms). */
export const scheduleTimingFields = {
  /**
   * Every span, counted from startAt (without one, from midnight UTC), e.g. "1d"; or `cron`. A
   * span counts elapsed time, so it takes no timezone (a day is 24 hours across a clock change).
   */
  every: span('every', { min: 60_000, max: 366 * dayMs }).optional(),
  /** A cron string read in `timezone`, e.g. "0 9 1 * *" (09:00 on the 1st). */
  cron: z
    .string({ error: 'cron must be a string of five fields, e.g. "0 9 1 * *"' })
    .refine(
      (value) => {
        const fields = value.trim().split(/\s+/);
        return fields.length === 5 && fields.every((field) => cronField.test(field));
      },
      { error: 'cron must be five fields (minute hour day month weekday), e.g. "0 9 1 * *"' },
    )
    .optional(),
  timezone: timezone.default('UTC'),
  startAt: isoInstant('startAt').optional(),
  endAt: isoInstant('endAt').optional(),
  /**
   * How late a missed occurrence may still run after an outage; one missed by longer is skipped
   * (a backfill pays it on purpose), so an outage never ends in a burst of late payments.
   */
  catchupWindow: span('catchupWindow', { min: 60_000, max: 7 * dayMs }).default(3_600_000),
  /** Each occurrence's validUntil: its time plus this (none: the intent has no deadline). */
  validFor: span('validFor', { min: 60_000, max: 366 * dayMs }).optional(),
};

export type ScheduleTiming = z.output<z.ZodObject<typeof scheduleTimingFields>>;

/** A schedule as a tenant asks for it. */
export const scheduleBodySchema = z
  .strictObject({
    payment: schedulePaymentBodySchema,
    ...scheduleTimingFields,
    note: z.string({ error: 'note must be a string' }).min(1).max(200).optional(),
  })
  .superRefine((body, ctx) => {
    const refuse = (field: string, message: string) =>
      ctx.issues.push({ code: 'custom', message, input: body, path: [field] });
    if ((body.every === undefined) === (body.cron === undefined))
      refuse('every', 'give every (a span) or cron (a calendar), exactly one of them');
    if (body.startAt && body.endAt && Date.parse(body.endAt) <= Date.parse(body.startAt))
      refuse('endAt', 'endAt must be after startAt');
    if (body.every !== undefined && body.timezone !== 'UTC')
      refuse(
        'timezone',
        'timezone is for cron: every counts from startAt, so give startAt with its offset (e.g. 2027-01-01T09:00:00+01:00), or use cron with the timezone',
      );
  });
export type ScheduleBody = z.output<typeof scheduleBodySchema>;

/** The intent of one occurrence: the schedule's id and the occurrence's time name it. */
export const occurrenceKey = (scheduleId: string, occurrenceAt: Date): string =>
  `schedule:${scheduleId}:${occurrenceAt.toISOString()}`;

/** The Temporal Schedule that times a payment schedule (visible in the Web UI by this id). */
export const temporalScheduleId = (scheduleId: string): string => `payment-schedule-${scheduleId}`;

/** A backfill pays at most this many days of occurrences at once. */
export const backfillMaxDays = 31;

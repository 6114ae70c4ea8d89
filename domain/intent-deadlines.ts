import { z } from 'zod';
import type { Intent } from './intent';

/** The furthest ahead a payment may be held back: a later one is a schedule's occurrence. */
export const notBeforeHorizonMs = 366 * 24 * 3_600_000;

/** An ISO 8601 time with its offset (`Z` or `+01:00`): the one form the API and the CLI take. */
export const isoInstant = (field: string) =>
  z.iso.datetime({
    offset: true,
    error: `${field} must be an ISO 8601 time with its offset, e.g. "2026-12-31T17:00:00Z"`,
  });

const instant = (field: string) =>
  z
    .string({ error: `${field} must be a string: an ISO 8601 time, e.g. "2026-12-31T17:00:00Z"` })
    .pipe(isoInstant(field))
    .transform((value) => new Date(value));

/**
 * When a payment may go: never signed or sent after `validUntil`, not signed before `notBefore`.
 * Checked against the clock at admission (service side), where "now" is known.
 */
export const deadlineFields = {
  validUntil: instant('validUntil').optional(),
  notBefore: instant('notBefore').optional(),
};

export interface Deadlines {
  validUntil?: Date;
  notBefore?: Date;
}

/** What is wrong with a request's deadlines at `now`, by field (empty: nothing). */
export function deadlineRefusals(
  { validUntil, notBefore }: Deadlines,
  now: Date,
): { field: string; message: string }[] {
  const refusals = [];
  if (validUntil && validUntil.getTime() <= now.getTime()) {
    refusals.push({
      field: 'validUntil',
      message: `validUntil ${validUntil.toISOString()} has already passed (now ${now.toISOString()})`,
    });
  }
  if (notBefore && validUntil && notBefore.getTime() >= validUntil.getTime()) {
    refusals.push({ field: 'notBefore', message: 'notBefore must be before validUntil' });
  }
  if (notBefore && notBefore.getTime() - now.getTime() > notBeforeHorizonMs) {
    refusals.push({
      field: 'notBefore',
      message: 'notBefore is more than 366 days ahead: a payment that far out is a schedule',
    });
  }
  return refusals;
}

/** The intent's validUntil has passed at `now`: it may not be signed, nor its bytes sent again. */
export const pastValidUntil = (intent: Pick<Intent, 'validUntil'>, now: Date): boolean =>
  intent.validUntil != null && now.getTime() >= intent.validUntil.getTime();

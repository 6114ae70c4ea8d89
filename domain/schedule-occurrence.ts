import { errorCatalogue, type ErrorName } from './error-catalogue';

/**
 * Refusals that pass on their own — a pause an operator lifts, a full tenant or backlog that
 * drains, a draining process: an occurrence refused for one of these is tried again, not lost.
 */
const refusalsThatPass: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'Paused',
  'TenantLimitReached',
  'BacklogFull',
  'RelayerClosed',
]);

/**
 * Until when an occurrence refused for a passing reason is tried again: the end of its catch-up
 * window, or — for a run started after that window (a backfill) — the same span from its start.
 */
export function catchUpDeadline({
  occurrenceAt,
  runStartedAt,
  catchupWindow,
}: {
  occurrenceAt: number;
  runStartedAt: number;
  catchupWindow: number;
}): number {
  const windowEnd = occurrenceAt + catchupWindow;
  return runStartedAt <= windowEnd ? windowEnd : runStartedAt + catchupWindow;
}

/** What an occurrence's refused admission becomes. */
export type OccurrenceRefusalMove =
  /** Tried again by the step's retry policy: the refusal passes, and there is time left. */
  | 'retry'
  /** Recorded missed with the reason: it passed too late for the window; a backfill runs it. */
  | 'missed'
  /** Recorded rejected: no retry cures it (no account, a policy, past validUntil). */
  | 'rejected'
  /** Thrown as it is: a fault of the moment (no answer in time), retried by the step's policy. */
  | 'throw';

export function decideOccurrenceRefusal({
  refusal,
  now,
  deadline,
}: {
  refusal: ErrorName;
  now: number;
  deadline: number;
}): OccurrenceRefusalMove {
  if (refusalsThatPass.has(refusal)) return now < deadline ? 'retry' : 'missed';
  return errorCatalogue[refusal].retryable ? 'throw' : 'rejected';
}

/**
 * What an occurrence became. `missed`: refused for a reason that passes (a pause, a full tenant)
 * until its catch-up window ended; a backfill over it runs it again.
 */
export const occurrenceOutcomes = ['admitted', 'rejected', 'skipped', 'missed'] as const;
export type OccurrenceOutcome = (typeof occurrenceOutcomes)[number];

/** An occurrence's record, as a backfill reads it before and after running it. */
export interface OccurrenceRecord {
  occurrenceAt: Date;
  outcome: OccurrenceOutcome;
  intentId: string | null;
  code: string | null;
  message: string | null;
  recordedAt: Date;
}

/** What a backfill did to one occurrence of its range. */
export interface BackfilledOccurrence extends Omit<OccurrenceRecord, 'outcome' | 'recordedAt'> {
  /** `pending`: still running when the answer was given (retried while its refusal passes). */
  outcome: OccurrenceOutcome | 'pending';
  /** False where an earlier run had decided it already (paid, or rejected for good). */
  ranNow: boolean;
}

export interface BackfillCounts {
  admitted: number;
  alreadyAdmitted: number;
  rejected: number;
  skipped: number;
  missed: number;
  pending: number;
}

/** A record an earlier run left, which a backfill's run does not change. */
const decided = (record: OccurrenceRecord | undefined): record is OccurrenceRecord =>
  record !== undefined && record.outcome !== 'missed';

/** Whether `after` is the record of the backfill's own run of an occurrence `before` described. */
const ranSince = (
  before: OccurrenceRecord | undefined,
  after: OccurrenceRecord | undefined,
): boolean =>
  after !== undefined &&
  (before === undefined ||
    (before.outcome === 'missed' &&
      (after.outcome !== 'missed' || after.recordedAt.getTime() > before.recordedAt.getTime())));

/**
 * Each occurrence of a backfill's range with what became of it: decided before (ranNow false),
 * run by this backfill, or still pending.
 */
export function backfillReport(
  times: readonly Date[],
  before: ReadonlyMap<number, OccurrenceRecord>,
  after: ReadonlyMap<number, OccurrenceRecord>,
): { occurrences: BackfilledOccurrence[]; counts: BackfillCounts } {
  const counts: BackfillCounts = {
    admitted: 0,
    alreadyAdmitted: 0,
    rejected: 0,
    skipped: 0,
    missed: 0,
    pending: 0,
  };
  const occurrences = times.map((time): BackfilledOccurrence => {
    const earlier = before.get(time.getTime());
    const now = after.get(time.getTime());
    const ranNow = !decided(earlier) && ranSince(earlier, now);
    const record = decided(earlier) ? earlier : ranNow ? now : undefined;
    const outcome = record?.outcome ?? 'pending';
    if (outcome === 'admitted' && !ranNow) counts.alreadyAdmitted++;
    else counts[outcome]++;
    return {
      occurrenceAt: time,
      outcome,
      ranNow,
      intentId: record?.intentId ?? null,
      code: record?.code ?? null,
      message: record?.message ?? null,
    };
  });
  return { occurrences, counts };
}

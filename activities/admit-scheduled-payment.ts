import { rejectionCodeOf } from '../domain/error-catalogue';
import {
  OccurrenceRefusedForNowError,
  RelayerError,
  ScheduleNotFoundError,
  UnknownTenantError,
} from '../domain/errors';
import { catchUpDeadline, decideOccurrenceRefusal } from '../domain/schedule-occurrence';
import { getIntent } from '../store/intents';
import { occurrenceKey, ScheduleState } from '../domain/payment-schedule';
import { admitIntent } from '../operations/admit-intent';
import {
  findOccurrence,
  findSchedule,
  recordOccurrence,
  type ScheduleOccurrence,
} from '../store/payment-schedules';
import type { ActivityDependencies } from './dependencies';
import type { Intent } from '../domain/intent';

export interface AdmitScheduledPaymentParameters {
  scheduleId: string;
  /** The occurrence's nominal time (epoch ms), as its Temporal Schedule named it. */
  occurrenceAt: number;
  /** When this run of the occurrence started (epoch ms): a backfill's window counts from it. */
  runStartedAt?: number;
}

export type AdmitScheduledPaymentResult = Pick<
  ScheduleOccurrence,
  'outcome' | 'intentId' | 'code' | 'message'
>;

/**
 * Turns one occurrence of a payment schedule into an intent, through the API's admission
 * (tenant limits, policies, approvals, balance), and starts its workflow. Idempotent: the intent's
 * Idempotency-Key is the schedule and the occurrence's time, and the first record of the
 * occurrence stands, so a retry, a second run or a backfill over it never pays twice. A refusal
 * a retry cannot fix (no balance, a policy) is recorded as the occurrence's outcome; one that
 * passes (a pause, a full tenant or backlog) is retried by Temporal until the catch-up window
 * ends, then recorded missed — and a backfill over a missed occurrence runs it again.
 */
export const admitScheduledPayment =
  ({ db, clock, admission, workflows, failpoints }: ActivityDependencies) =>
  async ({
    scheduleId,
    occurrenceAt,
    runStartedAt = occurrenceAt,
  }: AdmitScheduledPaymentParameters): Promise<AdmitScheduledPaymentResult> => {
    const at = new Date(occurrenceAt);
    const now = clock.now();
    const record = async (result: AdmitScheduledPaymentResult) => {
      await recordOccurrence(db.kysely, {
        scheduleId,
        occurrenceAt: at,
        recordedAt: now,
        ...result,
      });
      return (await findOccurrence(db.kysely, scheduleId, at))!;
    };
    let recorded = await findOccurrence(db.kysely, scheduleId, at);
    let admitted: Intent | undefined;
    if (!recorded || recorded.outcome === 'missed') {
      const schedule = await findSchedule(db.kysely, { id: scheduleId });
      if (!schedule) throw new ScheduleNotFoundError(scheduleId);
      if (schedule.state !== ScheduleState.active) {
        const message = `the schedule was ${schedule.state} when this occurrence came`;
        return record({ outcome: 'skipped', intentId: null, code: null, message });
      }
      const { validFor } = schedule.timing;
      try {
        const { intent } = await admitIntent(
          db,
          {
            ...schedule.payment,
            tenantId: schedule.tenantId,
            ...(validFor !== undefined && { validUntil: new Date(occurrenceAt + validFor) }),
          },
          {
            idempotencyKey: occurrenceKey(scheduleId, at),
            ...(schedule.createdBy !== null && { submittedBy: schedule.createdBy }),
          },
          admission,
          () => clock.now(),
        );
        admitted = intent;
        recorded = await record({
          outcome: 'admitted',
          intentId: intent.id,
          code: null,
          message: null,
        });
      } catch (error) {
        if (!(error instanceof RelayerError) || error instanceof UnknownTenantError) throw error;
        const code = rejectionCodeOf(error.name);
        if (!code) throw error;
        const deadline = catchUpDeadline({
          occurrenceAt,
          runStartedAt,
          catchupWindow: schedule.timing.catchupWindow,
        });
        const move = decideOccurrenceRefusal({ refusal: error.name, now: now.getTime(), deadline });
        if (move === 'retry') {
          throw new OccurrenceRefusedForNowError(scheduleId, at, new Date(deadline), error);
        }
        if (move === 'throw') throw error;
        return record({ outcome: move, intentId: null, code, message: error.message });
      }
    }
    // Admitted here or by an earlier run that may have stopped before starting its workflow.
    if (recorded.intentId !== null && workflows) {
      failpoints?.reach('after-occurrence-admitted');
      // The one just admitted is the one recorded: a concurrent run admits the same intent.
      await workflows.startIntent(admitted ?? (await getIntent(db.kysely, recorded.intentId)));
    }
    const { outcome, intentId, code, message } = recorded;
    return { outcome, intentId, code, message };
  };

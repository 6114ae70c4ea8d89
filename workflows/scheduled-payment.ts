import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RelayerActivities } from '../activities';
import type { AdmitScheduledPaymentResult } from '../activities/admit-scheduled-payment';
import { ErrorName } from '../domain/error-catalogue';
import { admissionStep } from './activity-profiles';
import { scheduledStartTimeKey } from './search-attributes';

const { admitScheduledPayment } = proxyActivities<RelayerActivities>(admissionStep);

export interface ScheduledPaymentInput {
  scheduleId: string;
}

/**
 * One occurrence of a payment schedule, started by its Temporal Schedule
 * (client/payment-schedules.ts): the occurrence's intent is admitted and its payment workflow
 * started, then this ends. The occurrence is named by its nominal time, the same however often
 * it runs (a backfill over it).
 */
export async function scheduledPayment({
  scheduleId,
}: ScheduledPaymentInput): Promise<AdmitScheduledPaymentResult> {
  const occurrenceAt = workflowInfo().typedSearchAttributes.get(scheduledStartTimeKey);
  if (!occurrenceAt) {
    // Started by hand: no occurrence to name, so nothing that could pay it only once.
    throw ApplicationFailure.nonRetryable(
      'a scheduled payment runs only from its schedule (no TemporalScheduledStartTime)',
      ErrorName.notAnOccurrence,
    );
  }
  return admitScheduledPayment({
    scheduleId,
    occurrenceAt: occurrenceAt.getTime(),
    runStartedAt: workflowInfo().runStartTime.getTime(),
  });
}

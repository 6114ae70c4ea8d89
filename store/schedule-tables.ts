import type { ScheduleState } from '../domain/payment-schedule';
import type { OccurrenceOutcome } from '../domain/schedule-occurrence';
import type { Timestamp } from './column-types';

// Tenants' recurring payments and their occurrences (migration 0022).

export interface PaymentSchedulesTable {
  id: string;
  tenant_id: string;
  /** domain SchedulePayment as JSON (amount as a decimal string). */
  payment: string;
  /** domain ScheduleTiming as JSON. */
  timing: string;
  state: ScheduleState;
  note: string | null;
  /** Why it is paused (migration 0026); undefined in rows read before it ran. */
  pause_note?: string | null;
  idempotency_key: string;
  /** Of the request as submitted: the same key with another request is refused. */
  request_sha256: string;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type { OccurrenceOutcome } from '../domain/schedule-occurrence';

export interface ScheduleOccurrencesTable {
  schedule_id: string;
  occurrence_at: Timestamp;
  outcome: OccurrenceOutcome;
  intent_id: string | null;
  code: string | null;
  message: string | null;
  recorded_at: Timestamp;
}

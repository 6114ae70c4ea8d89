import type { Generated } from 'kysely';
import type { Timestamp } from './column-types';
import type { WebhookDeliveryStatus } from '../domain/webhooks';

// The webhook tables: endpoints, the events told to them, each delivery and its attempts.

export type WebhookEndpointStatus = 'active' | 'disabled';

export interface WebhookEndpointsTable {
  id: string;
  tenant_id: string;
  url: string;
  /** JSON array of event types, or ["*"]. */
  event_types: string;
  /** Encrypted at rest (AES-256-GCM, WEBHOOK_SECRETS_KEY). */
  secret: string;
  /** The secret before the last rotation, still signed with until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: Timestamp | null;
  status: WebhookEndpointStatus;
  disabled_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookEventsTable {
  id: string;
  tenant_id: string;
  /**
   * What the event is about, its sequence counted per subject: the intent's id, or for an
   * operator's wallet event `wallet:<chainId>:<address>` (domain/wallet-events.ts).
   */
  intent_id: string;
  sequence: number;
  type: string;
  previous_status: string | null;
  /** The body every attempt sends and signs, serialized once when the change was stored. */
  body: string;
  created_at: Timestamp;
}

export type { WebhookDeliveryStatus };

export interface WebhookDeliveriesTable {
  event_id: string;
  endpoint_id: string;
  intent_id: string;
  sequence: number;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  /** When it may be tried (again): its creation, then after each failure a backoff later. */
  next_attempt_at: Timestamp;
  /** When the sweep told its endpoint's delivery workflow of it (null: not yet). */
  told_at: Timestamp | null;
  delivered_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  event_id: string;
  endpoint_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: Timestamp;
}

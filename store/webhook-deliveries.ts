import type { Kysely } from 'kysely';
import { fromTimestamp, type Schema, type WebhookDeliveryStatus } from './schema';

/**
 * Active endpoints with deliveries their workflow was not told of yet (events stored since), or
 * overdue since before `overdueBefore` (its workflow may be gone): the sweep tells them. A
 * disabled endpoint's deliveries wait for it to be enabled again.
 */
export async function endpointsToTell(
  db: Kysely<Schema>,
  overdueBefore: Date,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_deliveries as delivery')
    .innerJoin('webhook_endpoints as endpoint', 'endpoint.id', 'delivery.endpoint_id')
    .select('delivery.endpoint_id')
    .distinct()
    .where('delivery.status', '=', 'pending')
    .where((eb) =>
      eb.or([
        eb('delivery.told_at', 'is', null),
        eb('delivery.next_attempt_at', '<', overdueBefore.toISOString()),
      ]),
    )
    .where('endpoint.status', '=', 'active')
    .limit(limit)
    .execute();
  return rows.map((row) => row.endpoint_id);
}

/** The endpoint's workflow was told of its new deliveries (those stored up to now). */
export async function markTold(db: Kysely<Schema>, endpointId: string, now: Date): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ told_at: now.toISOString() })
    .where('endpoint_id', '=', endpointId)
    .where('told_at', 'is', null)
    .where('created_at', '<=', now.toISOString())
    .execute();
}

export interface DueDelivery {
  eventId: string;
  intentId: string;
  attempts: number;
  body: string;
  createdAt: Date;
}

/**
 * The endpoint's deliveries that may be attempted at `now`, oldest due first: each the first
 * pending event of its intent (an intent's events go in its order: a later one waits for the
 * one before it), whose backoff has passed.
 */
export async function dueDeliveries(
  db: Kysely<Schema>,
  endpointId: string,
  now: Date,
  limit: number,
): Promise<DueDelivery[]> {
  const rows = await db
    .selectFrom('webhook_deliveries as delivery')
    .innerJoin('webhook_events as event', 'event.id', 'delivery.event_id')
    .select([
      'delivery.event_id',
      'delivery.intent_id',
      'delivery.attempts',
      'delivery.created_at',
      'event.body',
    ])
    .where('delivery.endpoint_id', '=', endpointId)
    .where('delivery.status', '=', 'pending')
    .where('delivery.next_attempt_at', '<=', now.toISOString())
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as earlier')
            .select('earlier.event_id')
            .whereRef('earlier.endpoint_id', '=', 'delivery.endpoint_id')
            .whereRef('earlier.intent_id', '=', 'delivery.intent_id')
            .whereRef('earlier.sequence', '<', 'delivery.sequence')
            .where('earlier.status', '=', 'pending'),
        ),
      ),
    )
    .orderBy('delivery.next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    eventId: row.event_id,
    intentId: row.intent_id,
    attempts: Number(row.attempts),
    body: row.body,
    createdAt: fromTimestamp(row.created_at),
  }));
}

/** When the endpoint's next pending delivery may be attempted; undefined when none is pending. */
export async function nextAttemptAt(
  db: Kysely<Schema>,
  endpointId: string,
): Promise<Date | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row?.at ? fromTimestamp(row.at as Date | string) : undefined;
}

/** What an attempt leaves its delivery in: done, a dead letter, or pending (when to try again). */
export type AttemptOutcome =
  { status: 'delivered' | 'dead' } | { status: 'pending'; nextAttemptAt?: Date };

/**
 * One attempt in the delivery log and what it leaves its delivery in, in one transaction: the
 * log, the delivery's count and its state never disagree after a crash.
 */
export async function recordAttempt(
  db: Kysely<Schema>,
  attempt: {
    eventId: string;
    endpointId: string;
    attempt: number;
    statusCode: number | null;
    error: string | null;
    durationMs: number;
  },
  outcome: AttemptOutcome,
  now: Date,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values({
        event_id: attempt.eventId,
        endpoint_id: attempt.endpointId,
        attempt: attempt.attempt,
        status_code: attempt.statusCode,
        error: attempt.error,
        duration_ms: attempt.durationMs,
        created_at: now.toISOString(),
      })
      .execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({
        attempts: attempt.attempt,
        last_status_code: attempt.statusCode,
        last_error: attempt.error,
        status: outcome.status,
        ...(outcome.status === 'delivered' && { delivered_at: now.toISOString() }),
        ...(outcome.status === 'pending' &&
          outcome.nextAttemptAt && { next_attempt_at: outcome.nextAttemptAt.toISOString() }),
        updated_at: now.toISOString(),
      })
      .where('event_id', '=', attempt.eventId)
      .where('endpoint_id', '=', attempt.endpointId)
      .execute();
  });
}

/**
 * Puts a delivery back in line (a redelivery an operator or tenant asked for); false if unknown.
 */
export async function redeliver(
  db: Kysely<Schema>,
  eventId: string,
  endpointId: string,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'pending',
      next_attempt_at: now.toISOString(),
      told_at: null,
      updated_at: now.toISOString(),
    })
    .where('event_id', '=', eventId)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface DeliveryRow {
  eventId: string;
  intentId: string;
  sequence: number;
  type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** When a pending delivery is tried next (after an earlier event of its intent, if any). */
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

/** An endpoint's deliveries, newest first (`status`: only those). */
export async function deliveriesOf(
  db: Kysely<Schema>,
  endpointId: string,
  options: { status?: WebhookDeliveryStatus; limit: number },
): Promise<DeliveryRow[]> {
  let query = db
    .selectFrom('webhook_deliveries as delivery')
    .innerJoin('webhook_events as event', 'event.id', 'delivery.event_id')
    .select([
      'delivery.event_id',
      'delivery.intent_id',
      'delivery.sequence',
      'event.type',
      'delivery.status',
      'delivery.attempts',
      'delivery.last_status_code',
      'delivery.last_error',
      'delivery.next_attempt_at',
      'delivery.delivered_at',
      'delivery.created_at',
    ])
    .where('delivery.endpoint_id', '=', endpointId)
    .orderBy('delivery.created_at', 'desc')
    .orderBy('delivery.event_id', 'desc')
    .limit(options.limit);
  if (options.status) query = query.where('delivery.status', '=', options.status);
  return (await query.execute()).map((row) => ({
    eventId: row.event_id,
    intentId: row.intent_id,
    sequence: Number(row.sequence),
    type: row.type,
    status: row.status,
    attempts: Number(row.attempts),
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    lastError: row.last_error,
    nextAttemptAt: row.status === 'pending' ? fromTimestamp(row.next_attempt_at) : null,
    deliveredAt: row.delivered_at === null ? null : fromTimestamp(row.delivered_at),
    createdAt: fromTimestamp(row.created_at),
  }));
}

import type { Kysely } from 'kysely';
import type { Intent, IntentStatus } from '../domain/intent';
import { eventBody, subscribesTo } from '../domain/webhooks';
import type { Schema } from './schema';

/**
 * The outbox: called inside the transaction that changes an intent's status, it stores the event
 * that reports the change — its body serialized now, as it will be sent — and a pending delivery
 * for each active endpoint of the tenant subscribed to it. Nothing at all when none is: tenants
 * without webhooks pay one indexed read per change.
 */
export async function recordStateChange(
  trx: Kysely<Schema>,
  intent: Intent,
  previousStatus: IntentStatus | null,
  now: Date,
  type: string = `intent.${intent.status}`,
): Promise<void> {
  const endpoints = (
    await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'event_types'])
      .where('tenant_id', '=', intent.tenantId)
      .where('status', '=', 'active')
      .execute()
  ).filter((endpoint) => subscribesTo(JSON.parse(endpoint.event_types) as string[], type));
  if (endpoints.length === 0) return;
  const last = await trx
    .selectFrom('webhook_events')
    .select((eb) => eb.fn.max('sequence').as('sequence'))
    .where('intent_id', '=', intent.id)
    .executeTakeFirst();
  const sequence = Number(last?.sequence ?? 0) + 1;
  const eventId = `evt_${intent.id.replace(/^pi_/, '')}_${sequence}`;
  const at = now.toISOString();
  await trx
    .insertInto('webhook_events')
    .values({
      id: eventId,
      tenant_id: intent.tenantId,
      intent_id: intent.id,
      sequence,
      type,
      previous_status: previousStatus,
      body: eventBody(intent, { sequence, previousStatus, at: now, type }),
      created_at: at,
    })
    .execute();
  await trx
    .insertInto('webhook_deliveries')
    .values(
      endpoints.map((endpoint) => ({
        event_id: eventId,
        endpoint_id: endpoint.id,
        intent_id: intent.id,
        sequence,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: at,
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
}

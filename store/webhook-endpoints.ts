import type { Kysely, Selectable } from 'kysely';
import {
  fromTimestamp,
  type Schema,
  type WebhookEndpointsTable,
  type WebhookEndpointStatus,
} from './schema';

export interface WebhookEndpoint {
  id: string;
  tenantId: string;
  url: string;
  eventTypes: string[];
  /** Sealed (see webhooks/secret-box.ts). */
  sealedSecret: string;
  /** The secret before the last rotation and until when it still signs, if any. */
  previous?: { sealedSecret: string; until: Date };
  status: WebhookEndpointStatus;
  disabledReason: string | null;
  createdAt: Date;
}

const endpointFromRow = (row: Selectable<WebhookEndpointsTable>): WebhookEndpoint => ({
  id: row.id,
  tenantId: row.tenant_id,
  url: row.url,
  eventTypes: JSON.parse(row.event_types) as string[],
  sealedSecret: row.secret,
  ...(row.previous_secret &&
    row.previous_secret_until && {
      previous: {
        sealedSecret: row.previous_secret,
        until: fromTimestamp(row.previous_secret_until),
      },
    }),
  status: row.status,
  disabledReason: row.disabled_reason,
  createdAt: fromTimestamp(row.created_at),
});

export async function insertEndpoint(
  db: Kysely<Schema>,
  endpoint: Pick<WebhookEndpoint, 'id' | 'tenantId' | 'url' | 'eventTypes' | 'sealedSecret'>,
  now: Date,
): Promise<void> {
  await db
    .insertInto('webhook_endpoints')
    .values({
      id: endpoint.id,
      tenant_id: endpoint.tenantId,
      url: endpoint.url,
      event_types: JSON.stringify(endpoint.eventTypes),
      secret: endpoint.sealedSecret,
      previous_secret: null,
      previous_secret_until: null,
      status: 'active',
      disabled_reason: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
}

export async function findEndpoint(
  db: Kysely<Schema>,
  id: string,
): Promise<WebhookEndpoint | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row && endpointFromRow(row);
}

export async function listEndpoints(
  db: Kysely<Schema>,
  tenantId?: string,
): Promise<WebhookEndpoint[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll().orderBy('created_at');
  if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
  return (await query.execute()).map(endpointFromRow);
}

/** A new secret; the one before keeps signing beside it until `previousUntil`. */
export async function rotateEndpointSecret(
  db: Kysely<Schema>,
  endpoint: WebhookEndpoint,
  sealedSecret: string,
  previousUntil: Date,
  now: Date,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({
      secret: sealedSecret,
      previous_secret: endpoint.sealedSecret,
      previous_secret_until: previousUntil.toISOString(),
      updated_at: now.toISOString(),
    })
    .where('id', '=', endpoint.id)
    .execute();
}

export async function setEndpointStatus(
  db: Kysely<Schema>,
  id: string,
  status: WebhookEndpointStatus,
  reason: string | null,
  now: Date,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ status, disabled_reason: reason, updated_at: now.toISOString() })
    .where('id', '=', id)
    .execute();
}

import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Schema } from './schema';

/** How an intent's list is narrowed by the caller's marks: its reference, values of its keys. */
export interface CallerReferenceQuery {
  reference?: string;
  /** Every key given must hold its value. */
  metadata?: Readonly<Record<string, string>>;
}

/** The metadata kept on an intent row (JSON), read back; null: none. */
export const metadataOfColumn = (column: string | null): Record<string, string> | null =>
  column === null ? null : (JSON.parse(column) as Record<string, string>);

/** An intent's metadata as rows of the side table a search by value reads. */
export async function insertMetadataRows(
  db: Kysely<Schema>,
  intent: { id: string; tenantId: string },
  metadata: Readonly<Record<string, string>>,
): Promise<void> {
  const rows = Object.entries(metadata).map(([key, value]) => ({
    intent_id: intent.id,
    tenant_id: intent.tenantId,
    key,
    value,
  }));
  if (rows.length > 0) await db.insertInto('intent_metadata').values(rows).execute();
}

/**
 * Narrows a select from `intents` to those with the reference and each key's value: the keys
 * are looked up in the side table by (tenant, key, value), its index, when the list is one
 * tenant's (`tenantId`), as every tenant key's is.
 */
export function whereCallerReference<Output>(
  select: SelectQueryBuilder<Schema, 'intents', Output>,
  query: CallerReferenceQuery & { tenantId?: string },
): SelectQueryBuilder<Schema, 'intents', Output> {
  let narrowed = select;
  if (query.reference !== undefined) {
    narrowed = narrowed.where('intents.reference', '=', query.reference);
  }
  for (const [key, value] of Object.entries(query.metadata ?? {})) {
    narrowed = narrowed.where('intents.id', 'in', (eb) => {
      const holding = eb
        .selectFrom('intent_metadata')
        .select('intent_metadata.intent_id')
        .where('intent_metadata.key', '=', key)
        .where('intent_metadata.value', '=', value);
      return query.tenantId === undefined
        ? holding
        : holding.where('intent_metadata.tenant_id', '=', query.tenantId);
    });
  }
  return narrowed;
}

/** The tenant's intent with this reference that holds it uniquely, if any. */
export async function intentHoldingReference(
  db: Kysely<Schema>,
  tenantId: string,
  reference: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('intents')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('reference', '=', reference)
    .where('reference_unique', '=', 1)
    .executeTakeFirst();
  return row?.id;
}

/** Whether the tenant asked that two of its intents never share a reference. */
export async function tenantWantsUniqueReferences(
  db: Kysely<Schema>,
  tenantId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('tenants')
    .select('unique_references')
    .where('id', '=', tenantId)
    .executeTakeFirst();
  return Number(row?.unique_references ?? 0) === 1;
}

/** Sets whether the tenant's intents must each have a reference of their own (false: no tenant). */
export async function requireUniqueReferences(
  db: Kysely<Schema>,
  tenantId: string,
  unique: boolean,
): Promise<boolean> {
  const result = await db
    .updateTable('tenants')
    .set({ unique_references: unique ? 1 : 0 })
    .where('id', '=', tenantId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Erases an intent's reference and metadata from every row the relayer keeps them in: the
 * intent, the search table, its batch item, and the bodies of its webhook events (sent or not:
 * a redelivery sends the redacted body). The ledger and the rest of the intent stay.
 */
export async function eraseCallerReference(db: Kysely<Schema>, intentId: string): Promise<void> {
  await db
    .updateTable('intents')
    .set({ reference: null, metadata: null, reference_unique: 0 })
    .where('id', '=', intentId)
    .execute();
  await db.deleteFrom('intent_metadata').where('intent_id', '=', intentId).execute();
  await db
    .updateTable('batch_items')
    .set({ reference: null, metadata: null })
    .where('intent_id', '=', intentId)
    .execute();
  const events = await db
    .selectFrom('webhook_events')
    .select(['id', 'body'])
    .where('intent_id', '=', intentId)
    .execute();
  for (const event of events) {
    const body = JSON.parse(event.body) as { data?: { intent?: Record<string, unknown> } };
    const snapshot = body.data?.intent;
    if (!snapshot || (snapshot.reference == null && isEmpty(snapshot.metadata))) continue;
    snapshot.reference = null;
    snapshot.metadata = {};
    await db
      .updateTable('webhook_events')
      .set({ body: JSON.stringify(body) })
      .where('id', '=', event.id)
      .execute();
  }
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || Object.keys(value as object).length === 0;

import { type Kysely, type Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

export const webhooks = (context: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await createEndpoints(db, context);
    await createEvents(db, context);
    await createDeliveries(db, context);
    await createAttempts(db, context);
  },
});

async function createEndpoints(
  db: Kysely<unknown>,
  { timestamp }: MigrationContext,
): Promise<void> {
  // Where a tenant is told of its intents' state changes; secrets encrypted at rest.
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', timestamp)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_tenant')
    .on('webhook_endpoints')
    .columns(['tenant_id', 'status'])
    .execute();
}

async function createEvents(db: Kysely<unknown>, { timestamp }: MigrationContext): Promise<void> {
  // The outbox: one event per state change, its body as sent, written with the change.
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('intent_id', 'text', (c) => c.notNull().references('intents.id'))
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('previous_status', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addUniqueConstraint('webhook_events_intent_sequence', ['intent_id', 'sequence'])
    .execute();
}

async function createDeliveries(
  db: Kysely<unknown>,
  { timestamp }: MigrationContext,
): Promise<void> {
  // Each event for each endpoint subscribed to it when it happened.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('intent_id', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', timestamp, (c) => c.notNull())
    .addColumn('told_at', timestamp)
    .addColumn('delivered_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_deliveries_pk', ['event_id', 'endpoint_id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_lane')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'intent_id', 'status', 'sequence'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_untold')
    .on('webhook_deliveries')
    .columns(['told_at', 'status'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'status', 'next_attempt_at'])
    .execute();
}

async function createAttempts(
  db: Kysely<unknown>,
  { dialect, timestamp }: MigrationContext,
): Promise<void> {
  // The delivery log: every attempt, what the receiver answered.
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
      c.primaryKey().notNull(),
    )
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_attempts_endpoint')
    .on('webhook_attempts')
    .columns(['endpoint_id', 'id'])
    .execute();
}

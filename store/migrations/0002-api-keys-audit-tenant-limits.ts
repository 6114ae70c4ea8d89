import { type Kysely, type Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

export const apiKeysAuditTenantLimits = ({ dialect, timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    // null: the relayer's default per-tenant limit applies.
    await db.schema.alterTable('tenants').addColumn('max_in_flight', 'integer').execute();
    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('tenant_id', 'text', (c) => c.references('tenants.id'))
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('secret_sha256', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addColumn('revoked_at', timestamp)
      .execute();
    await db.schema
      .createTable('audit_log')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
        c.primaryKey().notNull(),
      )
      .addColumn('intent_id', 'text', (c) => c.notNull().references('intents.id'))
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_intent').on('audit_log').column('intent_id').execute();
    // A tenant's Idempotency-Key names one intent for good.
    await db.schema.alterTable('intents').addColumn('idempotency_key', 'text').execute();
    await db.schema
      .createIndex('intents_tenant_idempotency_key')
      .on('intents')
      .columns(['tenant_id', 'idempotency_key'])
      .unique()
      .execute();
    // The list endpoint pages through a tenant's intents newest first.
    await db.schema
      .createIndex('intents_tenant_created')
      .on('intents')
      .columns(['tenant_id', 'created_at', 'id'])
      .execute();
  },
});

import { type Kysely, type Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

export const batches = ({ amount, timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('batches')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('concurrency', 'integer', (c) => c.notNull())
      .addColumn('item_count', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('cause', 'text')
      .addColumn('idempotency_key', 'text', (c) => c.notNull())
      .addColumn('request_sha256', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addColumn('updated_at', timestamp, (c) => c.notNull())
      .addUniqueConstraint('batches_tenant_idempotency_key', ['tenant_id', 'idempotency_key'])
      .execute();
    await db.schema
      .createTable('batch_items')
      .addColumn('batch_id', 'text', (c) => c.notNull().references('batches.id'))
      .addColumn('item_index', 'integer', (c) => c.notNull())
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('from_address', 'text', (c) => c.notNull())
      .addColumn('to_address', 'text', (c) => c.notNull())
      .addColumn('amount', amount, (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('intent_id', 'text', (c) => c.unique().references('intents.id'))
      .addColumn('outcome', 'text')
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('started_at', timestamp)
      .addColumn('finished_at', timestamp)
      .addPrimaryKeyConstraint('batch_items_pk', ['batch_id', 'item_index'])
      .execute();
  },
});

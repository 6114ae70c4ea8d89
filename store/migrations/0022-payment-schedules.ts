import type { Kysely, Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

/**
 * Tenants' recurring payments (a Temporal Schedule times each) and what each occurrence became:
 * one row per (schedule, occurrence time), so an occurrence is admitted once however often it runs.
 */
export const paymentSchedules = ({ timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('payment_schedules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      // The template and the timing as JSON: read whole, never queried by field.
      .addColumn('payment', 'text', (c) => c.notNull())
      .addColumn('timing', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('note', 'text')
      .addColumn('idempotency_key', 'text', (c) => c.notNull())
      .addColumn('request_sha256', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text')
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addColumn('updated_at', timestamp, (c) => c.notNull())
      .addUniqueConstraint('payment_schedules_key', ['tenant_id', 'idempotency_key'])
      .execute();
    await db.schema
      .createTable('schedule_occurrences')
      .addColumn('schedule_id', 'text', (c) => c.notNull())
      .addColumn('occurrence_at', timestamp, (c) => c.notNull())
      // 'admitted' (intent_id names its intent), 'rejected' (code, message) or 'skipped'.
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('intent_id', 'text')
      .addColumn('code', 'text')
      .addColumn('message', 'text')
      .addColumn('recorded_at', timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('schedule_occurrences_pk', ['schedule_id', 'occurrence_at'])
      .execute();
  },
});

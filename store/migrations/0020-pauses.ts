import type { Kysely, Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

/**
 * Operators' pauses of the whole relayer, a tenant or a chain: a row per pause, kept once resumed
 * (its history is who stopped what, why, and for how long).
 */
export const pauses = ({ timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('pauses')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('scope', 'text', (c) => c.notNull())
      // '' for the whole relayer, the tenant's id, or the chain's id as text.
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('note', 'text', (c) => c.notNull())
      .addColumn('refuse_admission', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('paused_by', 'text', (c) => c.notNull())
      .addColumn('paused_at', timestamp, (c) => c.notNull())
      .addColumn('resumed_by', 'text')
      .addColumn('resumed_at', timestamp)
      .addColumn('resume_note', 'text')
      .execute();
    await db.schema
      .createIndex('pauses_active')
      .on('pauses')
      .columns(['resumed_at', 'scope', 'target'])
      .execute();
  },
});

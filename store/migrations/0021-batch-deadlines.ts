import type { Kysely, Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

/** A batch's deadlines, carried by each of its items' intents (null: none). */
export const batchDeadlines = ({ timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('batches').addColumn('valid_until', timestamp).execute();
    await db.schema.alterTable('batches').addColumn('not_before', timestamp).execute();
  },
});

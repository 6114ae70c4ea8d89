import type { Kysely, Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

/** When an intent may go: not signed after valid_until, nor before not_before (null: any time). */
export const intentDeadlines = ({ timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('intents').addColumn('valid_until', timestamp).execute();
    await db.schema.alterTable('intents').addColumn('not_before', timestamp).execute();
  },
});

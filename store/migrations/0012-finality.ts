import { sql, type Kysely, type Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

export const finality = ({ timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    // When a confirmed intent's block became final; the sweep looks for confirmed, not yet.
    await db.schema.alterTable('intents').addColumn('finalized_at', timestamp).execute();
    // Intents confirmed before finality was followed are taken as final when they were
    // confirmed: the sweep sends no intent.finalized for history.
    await sql`update intents set finalized_at = updated_at where status = 'confirmed'`.execute(db);
    await db.schema
      .createIndex('intents_awaiting_finality')
      .on('intents')
      .columns(['status', 'chain_id', 'finalized_at'])
      .execute();
  },
});

import { sql, type Kysely, type Migration } from 'kysely';

/** How many `intent.delayed` notices an intent has sent: their bound, kept with the intent. */
export const delayedNotices: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('intents')
      .addColumn('delayed_notices', 'integer', (column) => column.notNull().defaultTo(sql`0`))
      .execute();
  },
};

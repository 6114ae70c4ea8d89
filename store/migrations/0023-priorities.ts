import type { Kysely, Migration } from 'kysely';

/** How urgent an intent or a batch's items are: urgent, normal or bulk (null: the default). */
export const priorities: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('intents').addColumn('priority', 'text').execute();
    await db.schema.alterTable('batches').addColumn('priority', 'text').execute();
  },
};

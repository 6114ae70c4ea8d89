import type { Kysely, Migration } from 'kysely';

/**
 * A payment's own fee ceiling, and a batch item's, wei per gas as decimal text (null: the chain's
 * caps only).
 */
export const feeCeilings: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('intents').addColumn('max_fee_per_gas', 'text').execute();
    await db.schema.alterTable('batch_items').addColumn('max_fee_per_gas', 'text').execute();
  },
};

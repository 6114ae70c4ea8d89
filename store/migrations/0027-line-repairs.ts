import type { Kysely, Migration } from 'kysely';

/**
 * One row per nonce of a wallet sent again for a payment waiting behind it, per block: the
 * fleet-wide cap on those re-sends (the first process to insert for a block sends).
 */
export const lineRepairs: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('line_repairs')
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('nonce', 'integer', (c) => c.notNull())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('tx_hash', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('line_repairs_pk', ['chain_id', 'address', 'nonce', 'block_number'])
      .execute();
  },
};

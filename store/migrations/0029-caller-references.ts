import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The caller's reference and metadata on an intent (domain/caller-reference.ts). The metadata is
 * kept whole on the intent (what views and webhooks show) and once more as (intent, key, value)
 * rows, so a search by a key's value reads an index, not a scan of JSON. A tenant that asks for
 * unique references has each of its intents' reference marked unique: a partial unique index
 * then lets only one of two racing requests with the same reference in.
 */
export const callerReferences: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('intents').addColumn('reference', 'text').execute();
    await db.schema.alterTable('intents').addColumn('metadata', 'text').execute();
    await db.schema
      .alterTable('intents')
      .addColumn('reference_unique', 'integer', (c) => c.notNull().defaultTo(sql`0`))
      .execute();
    await db.schema
      .createIndex('intents_by_reference')
      .on('intents')
      .columns(['tenant_id', 'reference'])
      .execute();
    await db.schema
      .createIndex('intents_unique_reference')
      .unique()
      .on('intents')
      .columns(['tenant_id', 'reference'])
      .where(sql.ref('reference_unique'), '=', 1)
      .execute();
    await db.schema
      .createTable('intent_metadata')
      .addColumn('intent_id', 'text', (c) => c.notNull().references('intents.id'))
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('intent_metadata_pk', ['intent_id', 'key'])
      .execute();
    await db.schema
      .createIndex('intent_metadata_by_value')
      .on('intent_metadata')
      .columns(['tenant_id', 'key', 'value'])
      .execute();
    // A batch's items carry theirs until each becomes an intent (and in its results after).
    await db.schema.alterTable('batch_items').addColumn('reference', 'text').execute();
    await db.schema.alterTable('batch_items').addColumn('metadata', 'text').execute();
    // A deposit address's own (a customer's, say), copied to each deposit found at it.
    for (const table of ['deposit_addresses', 'deposits']) {
      await db.schema.alterTable(table).addColumn('reference', 'text').execute();
      await db.schema.alterTable(table).addColumn('metadata', 'text').execute();
    }
    await db.schema
      .alterTable('tenants')
      .addColumn('unique_references', 'integer', (c) => c.notNull().defaultTo(sql`0`))
      .execute();
  },
};

import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

export const assets = ({ amount, timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    // The ERC-20 tokens registered per chain, as read from the chain when registered.
    await db.schema
      .createTable('assets')
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('alias', 'text', (c) => c.notNull())
      .addColumn('symbol', 'text', (c) => c.notNull())
      .addColumn('decimals', 'integer', (c) => c.notNull())
      .addColumn('fee_on_transfer', 'integer', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('assets_pk', ['chain_id', 'address'])
      .addUniqueConstraint('assets_alias', ['chain_id', 'alias'])
      .execute();
    // Books per asset: an account is (owner, kind, asset); what was kept is the native coin's.
    await db.schema
      .createTable('ledger_accounts_by_asset')
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('asset', 'text', (c) => c.notNull())
      .addColumn('balance', amount, (c) => c.notNull())
      .addPrimaryKeyConstraint('ledger_accounts_asset_pk', ['owner', 'kind', 'asset'])
      .execute();
    await sql`insert into ledger_accounts_by_asset (owner, kind, asset, balance)
        select owner, kind, 'native', balance from ledger_accounts`.execute(db);
    await db.schema.dropTable('ledger_accounts').execute();
    await db.schema.alterTable('ledger_accounts_by_asset').renameTo('ledger_accounts').execute();
    const native = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo('native');
    for (const table of ['postings', 'holds', 'intents', 'batch_items']) {
      await db.schema.alterTable(table).addColumn('asset', 'text', native).execute();
    }
    // Gas the hot wallet paid for an intent's mined transaction, and what it held for it.
    await db.schema
      .alterTable('holds')
      .addColumn('fee_held', amount, (c) => c.notNull().defaultTo('0'))
      .execute();
    await db.schema.alterTable('intents').addColumn('fee_paid', amount).execute();
    // What a token actually delivered, when it took a fee on transfer.
    await db.schema.alterTable('intents').addColumn('delivered_amount', amount).execute();
  },
});

import { type Kysely, type Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

export const intentsLedgerWallets = ({
  dialect,
  amount,
  timestamp,
}: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('tenants')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('ledger_accounts')
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('balance', amount, (c) => c.notNull())
      .addPrimaryKeyConstraint('ledger_accounts_pk', ['owner', 'kind'])
      .execute();
    await db.schema
      .createTable('postings')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
        c.primaryKey().notNull(),
      )
      .addColumn('entry', 'text', (c) => c.notNull())
      .addColumn('intent_id', 'text')
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('amount', amount, (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('postings_intent').on('postings').column('intent_id').execute();
    await db.schema
      .createTable('holds')
      .addColumn('intent_id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('amount', amount, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addColumn('updated_at', timestamp, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('wallets')
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('next_nonce', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('wallets_pk', ['chain_id', 'address'])
      .execute();
    await db.schema
      .createTable('intents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('from_address', 'text', (c) => c.notNull())
      .addColumn('to_address', 'text', (c) => c.notNull())
      .addColumn('amount', amount, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('nonce', 'integer')
      .addColumn('tx_hash', 'text', (c) => c.unique())
      .addColumn('raw_tx', 'text')
      .addColumn('block_number', 'bigint')
      .addColumn('reason', 'text')
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addColumn('updated_at', timestamp, (c) => c.notNull())
      // A nonce belongs to exactly one intent: the database refuses a second owner.
      .addUniqueConstraint('intents_wallet_nonce', ['chain_id', 'from_address', 'nonce'])
      .execute();
    await db.schema.createIndex('intents_status').on('intents').column('status').execute();
    await db.schema
      .createIndex('intents_tenant_status')
      .on('intents')
      .columns(['tenant_id', 'status'])
      .execute();
  },
});

import { type Kysely, type Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

export const walletPools = ({ timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    // A retired wallet signs nothing new and finishes what it has.
    await db.schema.alterTable('wallets').addColumn('retired_at', timestamp).execute();
    // The wallets a tenant's intents may be sent from, per chain; none listed: every wallet.
    await db.schema
      .createTable('tenant_wallets')
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('tenant_wallets_pk', ['tenant_id', 'chain_id', 'address'])
      .execute();
  },
});

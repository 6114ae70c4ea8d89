import type { Kysely, Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

/**
 * Deposit addresses (CREATE2 forwarders: no key per address), every transfer seen into one, keyed
 * by (chain, transaction, log) so each is credited once however often it is seen, and how far
 * each chain has been read, so a watcher that was down reads on from there; the sweeps that empty
 * the addresses into the treasury (the house's own intents) and each chain's last reconciliation.
 */
export const deposits = ({ amount, timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('deposit_addresses')
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('address_index', 'integer', (c) => c.notNull())
      .addColumn('salt', 'text', (c) => c.notNull())
      .addColumn('factory', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('deposit_addresses_pk', ['chain_id', 'address'])
      .addUniqueConstraint('deposit_addresses_tenant_index', [
        'tenant_id',
        'chain_id',
        'address_index',
      ])
      .execute();
    await db.schema
      .createTable('deposits')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('tx_hash', 'text', (c) => c.notNull())
      .addColumn('log_index', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('asset', 'text', (c) => c.notNull())
      .addColumn('amount', amount, (c) => c.notNull())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('block_hash', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('detected_at', timestamp, (c) => c.notNull())
      .addColumn('credited_at', timestamp)
      .addColumn('updated_at', timestamp, (c) => c.notNull())
      .addColumn('sweep_intent_id', 'text')
      .addUniqueConstraint('deposits_transfer', ['chain_id', 'tx_hash', 'log_index'])
      .execute();
    await db.schema
      .createIndex('deposits_awaiting_finality')
      .on('deposits')
      .columns(['status', 'chain_id', 'block_number'])
      .execute();
    await db.schema
      .createIndex('deposits_by_tenant')
      .on('deposits')
      .columns(['tenant_id', 'detected_at'])
      .execute();
    await db.schema
      .createTable('deposit_scans')
      .addColumn('chain_id', 'integer', (c) => c.primaryKey())
      .addColumn('next_block', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', timestamp, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('deposit_sweeps')
      .addColumn('intent_id', 'text', (c) => c.primaryKey().references('intents.id'))
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('created_at', timestamp, (c) => c.notNull())
      .addColumn('block_number', 'bigint')
      .addColumn('gas_paid', amount)
      .addColumn('swept', 'text')
      .execute();
    await db.schema
      .createIndex('deposit_sweeps_by_address')
      .on('deposit_sweeps')
      .columns(['chain_id', 'address'])
      .execute();
    await db.schema
      .createTable('deposit_reconciliations')
      .addColumn('chain_id', 'integer', (c) => c.primaryKey())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('differences', 'integer', (c) => c.notNull())
      .addColumn('report', 'text', (c) => c.notNull())
      .addColumn('checked_at', timestamp, (c) => c.notNull())
      .execute();
  },
});

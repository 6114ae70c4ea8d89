import { sql, type Kysely, type Migration } from 'kysely';
import { operatorOwner } from '../../domain/custody';
import { dropReference } from './table-changes';
import type { MigrationContext } from './migration-context';

export const treasury = ({ dialect, timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    // A chain's treasury signs top-ups of its hot wallets and is never chosen for a payment.
    await db.schema
      .alterTable('wallets')
      .addColumn('role', 'text', (c) => c.notNull().defaultTo('hot'))
      .execute();
    // When a wallet was first seen below its low mark in an asset: operators are told once
    // a dip. A row while it is low.
    await db.schema
      .createTable('wallet_low_marks')
      .addColumn('chain_id', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('asset', 'text', (c) => c.notNull())
      .addColumn('low_since', timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('wallet_low_marks_pk', ['chain_id', 'address', 'asset'])
      .execute();
    // The operators' own owner: top-ups (custody moves, no books) and operator webhooks.
    await sql`insert into tenants (id, name, created_at)
        values (${operatorOwner}, 'the relayer operators', ${new Date().toISOString()})`.execute(
      db,
    );
    // At most one top-up of a wallet in an asset not ended (review included: it may yet
    // land), whoever races to start one.
    await sql`create unique index intents_one_open_top_up on intents (chain_id, to_address, asset)
        where tenant_id = ${sql.lit(operatorOwner)}
          and status not in ('confirmed', 'failed', 'cancelled')`.execute(db);
    // Operator events are about a wallet, not an intent: the event's subject is no longer
    // bound to an intent row (intent events keep naming theirs).
    await dropReference(db, dialect, 'webhook_events', 'intent_id');
  },
});

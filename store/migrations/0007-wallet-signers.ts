import { type Kysely, type Migration } from 'kysely';
import type { MigrationContext } from './migration-context';

export const walletSigners = ({ timestamp }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    // Wallets added at run time, each with the signer that holds its key (never a key):
    // every worker takes them on, on every chain it serves.
    await db.schema
      .createTable('wallet_signers')
      .addColumn('address', 'text', (c) => c.primaryKey())
      .addColumn('signer', 'text', (c) => c.notNull())
      .addColumn('added_at', timestamp, (c) => c.notNull())
      .execute();
  },
});

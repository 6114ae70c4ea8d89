import { type Kysely, type Migration } from 'kysely';
import { allowNull } from './table-changes';
import type { MigrationContext } from './migration-context';

export const walletChosenAtSigning = ({ dialect }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    // An intent (or batch item) that names no wallet gets one when it is signed.
    for (const table of ['intents', 'batch_items']) {
      await allowNull(db, dialect, table, 'from_address');
    }
  },
});

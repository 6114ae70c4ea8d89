import { type Kysely, type Migration } from 'kysely';
import { rebookNativePerChain } from './rebook-native-per-chain';
import type { MigrationContext } from './migration-context';

export const booksPerChain = ({ dialect, rebook }: MigrationContext): Migration => ({
  async up(db: Kysely<unknown>) {
    await rebookNativePerChain(db, dialect, rebook);
  },
});

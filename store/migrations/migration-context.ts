import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from '../schema';
import type { RebookContext } from './rebook-native-per-chain';

/**
 * What a migration is written against: the dialect, and the column types that differ by it only
 * where SQLite cannot hold the value (wei does not fit in 64 bits, so SQLite keeps amounts as
 * TEXT and the ledger does its arithmetic with bigint).
 */
export interface MigrationContext {
  dialect: Dialect;
  amount: RawBuilder<unknown>;
  timestamp: RawBuilder<unknown>;
  /** Migration 0011's: the chain the books move to, and where it reports what it moved. */
  rebook: RebookContext;
}

export const migrationContext = (dialect: Dialect, rebook: RebookContext): MigrationContext => ({
  dialect,
  amount: dialect === 'postgres' ? sql`numeric(78, 0)` : sql`text`,
  timestamp: dialect === 'postgres' ? sql`timestamptz` : sql`text`,
  rebook,
});

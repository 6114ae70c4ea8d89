import type { ColumnType } from 'kysely';

// How the two drivers hold the values SQLite has no type for.

/** Wei amounts: TEXT on SQLite (64-bit integers are too small), NUMERIC(78,0) on PostgreSQL. */
export type Amount = string;
/** Timestamps: ISO-8601 TEXT on SQLite, timestamptz on PostgreSQL (read back as Date). */
export type Timestamp = ColumnType<Date | string, string, string>;

/** A timestamp as either driver returns it (pg: Date; better-sqlite3: ISO text). */
export const fromTimestamp = (value: Date | string): Date =>
  value instanceof Date ? value : new Date(value);
/** bigint columns come back as strings from pg and as numbers from better-sqlite3. */
export type BigIntColumn = ColumnType<string | number, string | number, string | number>;

/** A nullable timestamp, also read from rows of schemas from before its column existed. */
export const timestampOrNull = (value: Date | string | null | undefined): Date | null =>
  value == null ? null : fromTimestamp(value);

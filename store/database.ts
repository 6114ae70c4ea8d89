import BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, sql, SqliteDialect, type SelectQueryBuilder } from 'kysely';
import { Pool } from 'pg';
import { migrateTo, type MigrationOptions } from './migrations';
import { keepingStatements } from './sqlite-statements';
import type { Dialect, Schema } from './schema';
import { log } from '../domain/log';

/** SQLite's transactions run on one connection's Kysely: marked while they are open. */
const openSqliteTransactions = new WeakSet<Kysely<Schema>>();

/**
 * Whether `db` is inside a transaction: a Kysely transaction, or the connection of one of
 * SQLite's (which Kysely does not know as one).
 */
export const inTransaction = (db: Kysely<Schema>): boolean =>
  db.isTransaction || openSqliteTransactions.has(db);

export interface Database {
  readonly kysely: Kysely<Schema>;
  readonly dialect: Dialect;
  /**
   * Runs `work` in one transaction that other writers wait for. SQLite takes the write lock at
   * BEGIN (IMMEDIATE), so a read-then-write never fails halfway with SQLITE_BUSY when several
   * worker processes share the file; on PostgreSQL the rows read with `forUpdate` are locked.
   */
  transaction<T>(work: (trx: Kysely<Schema>) => Promise<T>): Promise<T>;
  /** Adds FOR UPDATE on PostgreSQL; SQLite already holds the database write lock. */
  forUpdate<DB, TB extends keyof DB, O>(
    query: SelectQueryBuilder<DB, TB, O>,
  ): SelectQueryBuilder<DB, TB, O>;
  /**
   * Makes transactions that call it with the same `lock` run one after another (a PostgreSQL
   * transaction-scoped advisory lock; SQLite's write lock already does it). For decisions that
   * read many rows and no single row could be locked for, like "is there still a free slot".
   */
  serialize(trx: Kysely<Schema>, lock: string): Promise<void>;
  /** Answers once the database does: for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//.test(url);

/**
 * `postgres://…` or `postgresql://…` selects PostgreSQL; `sqlite:<path>`, a plain path or
 * `:memory:` selects SQLite. Its schema is migrated to the latest, or up to migration `upTo`.
 */
export async function openDatabase(url: string, options?: MigrationOptions): Promise<Database> {
  const database = isPostgresUrl(url) ? openPostgres(url) : openSqlite(url);
  try {
    if (database.dialect === 'postgres') await reach(database, url);
    await migrateTo(database.kysely, database.dialect, options);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/**
 * A first query, so a server that cannot be reached or trusted (a TLS certificate the CA did not
 * sign, a wrong password) is named by its setting and address, never its password.
 */
async function reach(database: Database, url: string): Promise<void> {
  try {
    await database.ping();
  } catch (error) {
    const { host, pathname } = new URL(url);
    const said = error instanceof Error ? error.message : String(error);
    throw new Error(`DATABASE_URL: cannot use PostgreSQL at ${host}${pathname}: ${said}`, {
      cause: error,
    });
  }
}

/** The file an SQLite `url` names; undefined for PostgreSQL and `:memory:`. */
export function sqliteFileOf(url: string): string | undefined {
  if (isPostgresUrl(url)) return undefined;
  const file = url.replace(/^sqlite:(\/\/)?/, '');
  return file === ':memory:' ? undefined : file;
}

function openSqlite(url: string): Database {
  const file = sqliteFileOf(url) ?? ':memory:';
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const connection = new BetterSqlite3(file);
  connection.pragma('journal_mode = WAL');
  connection.pragma('busy_timeout = 10000');
  connection.pragma('foreign_keys = ON');
  const db = new Kysely<Schema>({
    dialect: new SqliteDialect({ database: keepingStatements(connection) }),
  });
  return {
    kysely: db,
    dialect: 'sqlite',
    transaction: (work) =>
      db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        openSqliteTransactions.add(conn);
        try {
          const result = await work(conn);
          await sql`commit`.execute(conn);
          return result;
        } catch (error) {
          await sql`rollback`.execute(conn);
          throw error;
        } finally {
          openSqliteTransactions.delete(conn);
        }
      }),
    forUpdate: (query) => query,
    serialize: async () => {},
    ping: () => ping(db),
    close: () => db.destroy(),
  };
}

function openPostgres(url: string): Database {
  const pool = new Pool({ connectionString: url, max: 10 });
  // An idle connection the server closes (restart, failover) is replaced on the next query; the
  // pool reports it as an 'error' event, which would otherwise end the process.
  pool.on('error', (error) => log.error(`database: idle connection lost: ${error.message}`));
  // A connection checked out between two queries (inside a transaction) that the server ends
  // reports it on the client, where no one listens: the process would end. Its next query fails
  // instead, and the pool drops it.
  pool.on('connect', (client) =>
    client.on('error', (error) => log.error(`database: connection lost: ${error.message}`)),
  );
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  return {
    kysely: db,
    dialect: 'postgres',
    transaction: (work) => db.transaction().execute(work),
    forUpdate: (query) => query.forUpdate(),
    serialize: async (trx, lock) => {
      await sql`select pg_advisory_xact_lock(hashtext(${lock}))`.execute(trx);
    },
    ping: () => ping(db),
    close: () => db.destroy(),
  };
}

const ping = async (db: Kysely<Schema>): Promise<void> => {
  await sql`select 1`.execute(db);
};

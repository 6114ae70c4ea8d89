import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/**
 * The connection as Kysely's SQLite dialect sees it, keeping the statements it prepared: Kysely
 * prepares every query anew, and compiling the SQL was a fifth of the worker's time in the
 * database (the bench's --profile). The least recently used statement goes past `size`.
 */
export function keepingStatements(connection: BetterSqlite3.Database, size = 500): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => connection.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = connection.prepare(sql);
        if (statements.size >= size) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../schema';

/** Column changes SQLite cannot make in place, as both dialects make them. */

/** Drops a column's NOT NULL. */
export async function allowNull(
  db: Kysely<unknown>,
  dialect: Dialect,
  table: string,
  column: string,
): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} drop not null`.execute(
      db,
    );
    return;
  }
  await rebuildSqliteTable(db, table, new RegExp(`("${column}"\\s+\\w+)\\s+not null`, 'i'));
}

/** Drops a column's foreign key (declared inline, as every migration here declares them). */
export async function dropReference(
  db: Kysely<unknown>,
  dialect: Dialect,
  table: string,
  column: string,
): Promise<void> {
  if (dialect === 'postgres') {
    // PostgreSQL's name for an inline reference.
    const constraint = `${table}_${column}_fkey`;
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(constraint)}`.execute(db);
    return;
  }
  await rebuildSqliteTable(
    db,
    table,
    new RegExp(`("${column}"[^,]*?)\\s+references\\s+"\\w+"\\s*\\("\\w+"\\)`, 'i'),
  );
}

/**
 * SQLite cannot alter a column: the table is built again from its own definition with `clause`
 * taken out of it (its first group kept; SQLite's documented twelve steps), with the references
 * from other tables kept, since they name the table, and its indexes made again.
 */
export async function rebuildSqliteTable(
  db: Kysely<unknown>,
  table: string,
  clause: RegExp,
): Promise<void> {
  const definitions = await sql<{ type: string; sql: string | null }>`
    select type, sql from sqlite_master where tbl_name = ${table}`.execute(db);
  const created = definitions.rows.find((row) => row.type === 'table')?.sql;
  if (!created || !clause.test(created)) {
    throw new Error(`${table}: no ${String(clause)} in ${created ?? 'no table'}`);
  }
  const rebuilt = `${table}_rebuilt`;
  // Outside a transaction (SQLite ignores the pragma inside one), then all steps in one.
  await sql`pragma foreign_keys = off`.execute(db);
  await sql`begin`.execute(db);
  try {
    await sql
      .raw(
        created
          .replace(clause, '$1')
          .replace(/^create table\s+"?\w+"?/i, `create table "${rebuilt}"`),
      )
      .execute(db);
    await sql`insert into ${sql.table(rebuilt)} select * from ${sql.table(table)}`.execute(db);
    await sql`drop table ${sql.table(table)}`.execute(db);
    await sql`alter table ${sql.table(rebuilt)} rename to ${sql.table(table)}`.execute(db);
    for (const index of definitions.rows) {
      if (index.type === 'index' && index.sql) await sql.raw(index.sql).execute(db);
    }
    const broken = await sql`pragma foreign_key_check`.execute(db);
    if (broken.rows.length > 0) throw new Error(`${table}: references broken by the rebuild`);
    await sql`commit`.execute(db);
  } catch (error) {
    await sql`rollback`.execute(db);
    throw error;
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

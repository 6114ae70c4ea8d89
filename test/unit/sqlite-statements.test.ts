import BetterSqlite3 from 'better-sqlite3';
import { keepingStatements } from '../../store/sqlite-statements';

describe('SQLite statements kept for Kysely', () => {
  it('prepares each SQL once, answers as a fresh statement would, and keeps at most `size`', () => {
    const connection = new BetterSqlite3(':memory:');
    const prepare = jest.spyOn(connection, 'prepare');
    const database = keepingStatements(connection, 2);
    try {
      database.prepare('create table t (n integer)').run([]);
      const insert = 'insert into t (n) values (?)';
      database.prepare(insert).run([1]);
      database.prepare(insert).run([2]);
      expect(database.prepare('select n from t order by n').all([])).toEqual([{ n: 1 }, { n: 2 }]);
      expect(prepare.mock.calls.map(([sql]) => sql)).toEqual([
        'create table t (n integer)',
        insert,
        'select n from t order by n',
      ]);
      // Two kept, the least recently used going first: the insert (used since) stays, the select goes.
      database.prepare(insert).run([3]);
      database.prepare('create table u (n integer)').run([]);
      database.prepare(insert);
      expect(prepare).toHaveBeenCalledTimes(4);
      database.prepare('select n from t order by n');
      expect(prepare).toHaveBeenCalledTimes(5);
    } finally {
      database.close();
    }
  });
});

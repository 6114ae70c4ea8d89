import { sql } from 'kysely';
import { createScratchDatabase } from '../harness/stack/local-world';
import { startPostgres, type PostgresServer } from '../harness/stack/postgres';
import { openDatabase, type Database } from '../../store/database';
import { log } from '../../domain/log';

let server: PostgresServer;
let database: Database;
beforeAll(async () => {
  server = await startPostgres();
  database = await openDatabase((await createScratchDatabase(server.url)).url);
});
afterAll(async () => {
  await database?.close();
  await server?.stop();
});

describe('the store through a PostgreSQL restart', () => {
  it('a transaction whose connection the server ends fails; the process and the next query go on', async () => {
    const logged = jest.spyOn(log, 'error').mockImplementation(() => undefined);
    try {
      const transaction = database.transaction(async (trx) => {
        await sql`select 1`.execute(trx);
        // Between two queries the connection is checked out and idle: the server goes away.
        await server.restart();
        await new Promise((resolve) => setTimeout(resolve, 200));
        await sql`select 2`.execute(trx);
      });
      await expect(transaction).rejects.toThrow();
      await expect(database.ping()).resolves.toBeUndefined();
      expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^database: connection lost/));
    } finally {
      logged.mockRestore();
    }
  });
});

import { startPostgres, type PostgresServer } from './stack/postgres';
import startSharedDevServer from './start-dev-server';

const shared = globalThis as { __postgres?: PostgresServer };

/**
 * The PostgreSQL project's servers: the shared dev server, and a throwaway PostgreSQL server
 * (Debian's binaries) unless TEST_POSTGRES_URL names one already. Each test world then keeps its
 * data in a fresh database of its own on it.
 */
export default async function startPostgresProject(): Promise<void> {
  await startSharedDevServer();
  if (process.env.TEST_POSTGRES_URL || shared.__postgres) return;
  shared.__postgres = await startPostgres();
  process.env.TEST_POSTGRES_URL = shared.__postgres.url;
  console.log(`PostgreSQL for the store suite: ${shared.__postgres.url}`);
}

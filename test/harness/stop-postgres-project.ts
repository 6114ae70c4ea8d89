import type { PostgresServer } from './stack/postgres';
import stopSharedDevServer from './stop-dev-server';

const shared = globalThis as { __postgres?: PostgresServer };

export default async function stopPostgresProject(): Promise<void> {
  const server = shared.__postgres;
  shared.__postgres = undefined;
  await Promise.all([stopSharedDevServer(), server?.stop()]);
}

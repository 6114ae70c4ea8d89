import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';

/**
 * A client and a native connection to the shared dev server (started by the jest project's global
 * setup), opened before the file's tests and closed after them.
 */
export function useDevServerClient(): { client: () => Client; connection: () => NativeConnection } {
  let connection: NativeConnection | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    connection = await NativeConnection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    client = new Client({ connection });
  });
  afterAll(() => connection?.close());
  return { client: () => client!, connection: () => connection! };
}

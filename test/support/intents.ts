import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { submitIntent, type SubmittedIntent } from '../../client/submit-intent';
import { terminalStatuses } from '../../domain/intent';
import type { LocalWorld } from '../../stack/local-world';

/** Submits `count` intents spread over the world's wallets and the given tenants. */
export async function submitMany(
  world: LocalWorld,
  taskQueue: string,
  count: number,
  tenants: string[] = ['acme', 'globex'],
): Promise<SubmittedIntent[]> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
  try {
    const client = new Client({ connection });
    return await Promise.all(
      Array.from({ length: count }, (_, i) =>
        submitIntent(
          { database: world.database, client, taskQueue },
          {
            tenantId: tenants[i % tenants.length],
            chainId: world.anvil.chainId,
            from: world.wallets[i % world.wallets.length],
            to: privateKeyToAccount(generatePrivateKey()).address,
            amount: parseEther('0.001').toString(),
          },
        ),
      ),
    );
  } finally {
    await connection.close();
  }
}

/** Resolves once `count` intents have ended; fails with their statuses after `timeoutMs`. */
export async function waitUntilSettled(
  world: LocalWorld,
  count: number,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await world.database.kysely.selectFrom('intents').select('status').execute();
    if (rows.filter((r) => terminalStatuses.has(r.status)).length >= count) return;
    if (Date.now() > deadline) {
      throw new Error(
        `not settled in ${timeoutMs} ms: ${JSON.stringify(rows.map((r) => r.status))}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

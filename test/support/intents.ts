import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { submitIntent, type SubmittedIntent } from '../../service/submit-intent';
import { waitUntilSettled as waitUntilSettledIn } from '../../client/wait-until-settled';
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
export const waitUntilSettled = (
  world: LocalWorld,
  count: number,
  timeoutMs: number,
): Promise<unknown> => waitUntilSettledIn(world.database, count, { timeoutMs });

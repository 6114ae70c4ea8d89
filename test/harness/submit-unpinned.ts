import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { LocalWorld } from './stack/local-world';
import type { Hex } from '../../domain/transfer';
import { submitIntent, type SubmittedIntent } from '../../service/submit-intent';

/**
 * `count` intents of tenant acme to fresh recipients, each from `from` or, without it, from the
 * wallet the relayer chooses; through the shared dev server.
 */
export async function submitPayments(
  world: LocalWorld,
  taskQueue: string,
  count: number,
  from?: Hex,
): Promise<SubmittedIntent[]> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
  try {
    const client = new Client({ connection });
    return await Promise.all(
      Array.from({ length: count }, () =>
        submitIntent(
          { database: world.database, client, taskQueue },
          {
            tenantId: 'acme',
            chainId: world.anvil.chainId,
            ...(from && { from }),
            to: privateKeyToAccount(generatePrivateKey()).address,
            amount: parseEther('0.01').toString(),
          },
        ),
      ),
    );
  } finally {
    await connection.close();
  }
}

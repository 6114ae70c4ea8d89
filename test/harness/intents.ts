import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { submitIntent, type SubmittedIntent } from '../../service/submit-intent';
import { terminalStatuses, type IntentStatus } from '../../domain/intent';
import { countIntentsByStatus } from '../../store/intents';
import { waitUntilSettled as waitUntilSettledIn } from './wait-until-settled';
import type { LocalWorld } from './stack/local-world';

/**
 * Submits `count` intents spread over the world's wallets and two tenants, through the shared dev
 * server or the one at `temporalAddress`; `tokenOf(i)` makes intent i a token payment instead.
 */
export async function submitMany(
  world: LocalWorld,
  taskQueue: string,
  count: number,
  temporalAddress = process.env.TEMPORAL_TEST_ADDRESS,
  tokenOf: (i: number) => { asset: string; amount: string } | undefined = () => undefined,
): Promise<SubmittedIntent[]> {
  const tenants = ['acme', 'globex'];
  const connection = await Connection.connect({ address: temporalAddress });
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
            ...tokenOf(i),
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

/** Resolves once every intent of `intentIds` has ended; fails naming the others after `timeoutMs`. */
export async function waitUntilEnded(
  world: LocalWorld,
  intentIds: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = (
      await world.database.kysely
        .selectFrom('intents')
        .select(['id', 'status'])
        .where('id', 'in', intentIds)
        .execute()
    ).filter((row) => !terminalStatuses.has(row.status as IntentStatus));
    if (open.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`not ended in ${timeoutMs} ms: ${JSON.stringify(open.slice(0, 10))}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** How many of the world's intents are confirmed. */
export const confirmedCount = async (world: LocalWorld): Promise<number> =>
  (await countIntentsByStatus(world.database.kysely)).confirmed ?? 0;

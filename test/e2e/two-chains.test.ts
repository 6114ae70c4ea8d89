import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { createPublicClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { submitIntent } from '../../service/submit-intent';
import { startAnvil, type Anvil } from '../../dev/stack/anvil';
import { waitUntilSettled } from '../support/intents';
import { expectBooksBalanced } from '../support/ledger-checks';
import { useTestWorld } from '../support/test-world';

const suite = useTestWorld({ tenants: { acme: '100' } });
let connection: Connection;
let secondChain: Anvil;
beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
  secondChain = await startAnvil({ chainId: 31_338 });
});
afterAll(async () => {
  await secondChain?.stop();
  await connection?.close();
});

describe('one worker process, two EVM chains at once', () => {
  it('pays on each chain from the same wallets, each chain with its own nonces', async () => {
    const world = suite.world();
    const taskQueue = `chains-${randomUUID()}`;
    await suite.spawnWorkers(1, {
      TASK_QUEUE: taskQueue,
      EXTRA_CHAINS: `${secondChain.chainId}=${secondChain.rpcUrl}`,
    });
    const client = new Client({ connection });
    const requests = Array.from({ length: 12 }, (_, i) => ({
      tenantId: 'acme',
      chainId: i % 2 === 0 ? world.anvil.chainId : secondChain.chainId,
      from: world.wallets[i % world.wallets.length]!,
      to: privateKeyToAccount(generatePrivateKey()).address,
      amount: parseEther('0.01').toString(),
    }));
    await Promise.all(
      requests.map((request) =>
        submitIntent({ database: world.database, client, taskQueue }, request),
      ),
    );
    await waitUntilSettled(world, requests.length, 60_000);

    const rows = await world.database.kysely.selectFrom('intents').selectAll().execute();
    expect(rows.map((row) => row.status)).toEqual(Array(12).fill('confirmed'));
    const reader = {
      [world.anvil.chainId]: world.testClient,
      [secondChain.chainId]: createPublicClient({ transport: http(secondChain.rpcUrl) }),
    };
    for (const request of requests) {
      const other =
        request.chainId === world.anvil.chainId ? secondChain.chainId : world.anvil.chainId;
      expect(await reader[request.chainId]!.getBalance({ address: request.to })).toBe(
        BigInt(request.amount),
      );
      expect(await reader[other]!.getBalance({ address: request.to })).toBe(0n);
    }
    await expectBooksBalanced(world.database);
  });
});

import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { minedTransactions } from '../harness/stack/chain-truth';
import { submitIntent } from '../../service/submit-intent';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { walletKey } from '../../workflows/search-attributes';
import { waitUntilSettled } from '../harness/intents';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

const world = useWorld({ wallets: 5, tenants: { acme: '1000' } });
let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
});
world.onStop(() => connection?.close());

/** Enough for sixteen at once to spread over the four wallets that can pay, many times over. */
const count = 80;

describe('intents that name no wallet', () => {
  it(`${count} of them use every wallet that can pay, with contiguous nonces each, and none that cannot`, async () => {
    const [poor, ...funded] = [world.wallets.at(-1)!, ...world.wallets.slice(0, -1)];
    // Enough for gas, not for one of these payments.
    await world.testClient.setBalance({ address: poor, value: parseEther('0.01') });
    const taskQueue = `e2e-${randomUUID()}`;
    await world.spawnWorkers(1, {
      TASK_QUEUE: taskQueue,
      POOL_WIDTH: '16',
      THROTTLE_MAX_IN_FLIGHT: '16',
      THROTTLE_PER_SECOND: '200',
      THROTTLE_BURST: '20',
    });
    const client = new Client({ connection });
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });
    const startNonces = await Promise.all(funded.map((w) => world.chain.pendingNonce(w)));

    const submitted = await Promise.all(
      Array.from({ length: count }, () =>
        submitIntent(
          { database: world.database, client, taskQueue },
          {
            tenantId: 'acme',
            chainId: world.anvil.chainId,
            to: privateKeyToAccount(generatePrivateKey()).address,
            amount: parseEther('0.5').toString(),
          },
        ),
      ),
    );
    expect(submitted.every(({ intent }) => intent.from === null)).toBe(true);
    await waitUntilSettled(world, count, 180_000);

    const rows = await world.database.kysely.selectFrom('intents').selectAll().execute();
    expect(rows.filter((row) => row.status !== 'confirmed')).toEqual([]);
    const mined = await minedTransactions(world, startBlock);
    expect(mined).toHaveLength(count);
    expect(mined.filter((tx) => tx.from === poor.toLowerCase())).toEqual([]);
    funded.forEach((wallet, w) => {
      const nonces = mined
        .filter((tx) => tx.from === wallet.toLowerCase())
        .map((tx) => tx.nonce)
        .sort((a, b) => a - b);
      // Every wallet takes a share, the lanes kept about even by their nonces in flight.
      expect(nonces.length).toBeGreaterThan(count / funded.length / 2);
      expect(nonces).toEqual(Array.from({ length: nonces.length }, (_, i) => startNonces[w]! + i));
    });
    for (const row of rows) {
      const tx = mined.find((t) => t.hash === row.tx_hash)!;
      expect(tx.from).toBe(row.from_address!.toLowerCase());
    }
    await expectBooksBalanced(world.database);

    // The chosen wallet is shown to the Web UI's search once the intent is signed.
    const { intent } = submitted[0]!;
    const row = rows.find((r) => r.id === intent.id)!;
    const described = await client.workflow
      .getHandle(paymentIntentWorkflowId(intent.id))
      .describe();
    expect(described.typedSearchAttributes.get(walletKey)).toBe(row.from_address);
  }, 240_000);
});

import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { tenantBalance } from '../../store/ledger';
import { submitIntent } from '../../service/submit-intent';
import { minedTransactions } from '../harness/stack/chain-truth';
import { waitUntilSettled } from '../harness/intents';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

const world = useWorld({ tenants: { acme: '100', globex: '100' } });
let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
});
world.onStop(() => connection?.close());

describe('50 intents through a worker process with 8 activity slots', () => {
  it('mines exactly 50 transactions, right recipient and amount, contiguous nonces, books balanced', async () => {
    const taskQueue = `e2e-${randomUUID()}`;
    const [worker] = await world.spawnWorkers(1, {
      TASK_QUEUE: taskQueue,
      POOL_WIDTH: '8',
      THROTTLE_MAX_IN_FLIGHT: '8',
      THROTTLE_PER_SECOND: '100',
      THROTTLE_BURST: '20',
    });
    const client = new Client({ connection });
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });
    const startNonces = await Promise.all(world.wallets.map((w) => world.chain.pendingNonce(w)));

    const intents = Array.from({ length: 50 }, (_, i) => ({
      tenantId: i % 2 === 0 ? 'acme' : 'globex',
      chainId: world.anvil.chainId,
      from: world.wallets[i % world.wallets.length],
      to: privateKeyToAccount(generatePrivateKey()).address,
      amount: parseEther(`0.${String(i + 10)}`).toString(),
    }));
    const submitted = await Promise.all(
      intents.map((request) =>
        submitIntent({ database: world.database, client, taskQueue }, request),
      ),
    );
    await waitUntilSettled(world, 50, 120_000);

    const rows = await world.database.kysely.selectFrom('intents').selectAll().execute();
    expect(rows.map((r) => r.status)).toEqual(Array(50).fill('confirmed'));

    const mined = await minedTransactions(world, startBlock);
    expect(mined).toHaveLength(50);
    expect(new Set(mined.map((tx) => tx.hash)).size).toBe(50);
    for (const { intent } of submitted) {
      const row = rows.find((r) => r.id === intent.id)!;
      const tx = mined.find((t) => t.hash === row.tx_hash);
      expect(tx).toMatchObject({
        from: intent.from!.toLowerCase(),
        to: intent.to.toLowerCase(),
        value: intent.amount,
      });
      expect(await world.testClient.getBalance({ address: intent.to })).toBe(intent.amount);
    }
    world.wallets.forEach((wallet, w) => {
      const nonces = mined
        .filter((tx) => tx.from === wallet.toLowerCase())
        .map((tx) => tx.nonce)
        .sort((a, b) => a - b);
      expect(nonces).toEqual(Array.from({ length: 25 }, (_, i) => startNonces[w]! + i));
    });

    const snapshot = await expectBooksBalanced(world.database);
    expect(snapshot.holds).toHaveLength(50);
    expect(snapshot.holds.every((h) => h.status === 'captured')).toBe(true);
    for (const tenant of ['acme', 'globex']) {
      const sent = intents
        .filter((i) => i.tenantId === tenant)
        .reduce((sum, i) => sum + BigInt(i.amount), 0n);
      expect(await tenantBalance(world.database.kysely, tenant, world.nativeBook)).toEqual({
        available: parseEther('100') - sent,
        held: 0n,
      });
    }

    worker!.signal('SIGTERM');
    expect(await worker!.exited).toBe(0);
    expect(worker!.output()).toMatch(/pool stopped: sent 50, retry \d+, abandoned 0, panics 0/);
  });
});

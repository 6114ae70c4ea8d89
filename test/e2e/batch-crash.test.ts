import { privateKeyToAccount } from 'viem/accounts';
import { minedTransactions } from '../harness/stack/chain-truth';
import { waitFor } from '../harness/stack/wait-for';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

// A kill, a restart and 40 payments: well within this, but more than Jest's default minute.
jest.setTimeout(180_000);

const world = useWorld({ proxy: true, wallets: 2, tenants: { acme: '100' } });
let api: ApiUnderTest | undefined;
world.onStop(() => api?.close());

describe('kill -9 of the worker in the middle of a batch', () => {
  it('a restarted worker completes the batch; every item is sent exactly once', async () => {
    await world.database.kysely.updateTable('tenants').set({ max_in_flight: 20 }).execute();
    // The API alone; the batch's work is done by worker processes on its task queue.
    api = await startApiWithoutWorkers(world, { tenantMaxInFlight: 20 });
    const { acme } = await createKeys(world, ['acme']);
    const client = api.as(acme);
    const env = {
      TASK_QUEUE: api.taskQueue,
      POOL_WIDTH: '6',
      THROTTLE_MAX_IN_FLIGHT: '4',
      THROTTLE_PER_SECOND: '100',
      THROTTLE_BURST: '100',
    };
    // Slow sends, so the kill lands with sends in flight and items half done.
    world.proxy!.holdResponses('eth_sendRawTransaction', 200);
    const [first] = await world.spawnWorkers(1, env);
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });
    const items = Array.from({ length: 40 }, (_, i) => ({
      chainId: world.anvil.chainId,
      from: world.wallets[i % 2]!,
      to: privateKeyToAccount(`0x${(i + 7).toString(16).padStart(64, '0')}`).address,
      amount: String(5_000 + i),
    }));
    const { body: batch } = await client.submitBatch({ items, concurrency: 6 }, 'crash-batch');

    await waitFor(
      async () =>
        ((await client.getBatch(batch.id)).counts.confirmed ?? 0) >= 10 &&
        world.proxy!.inFlight('eth_sendRawTransaction') > 0,
      'a send in flight after 10 items confirmed',
    );
    first!.signal('SIGKILL');
    expect(await first!.exited).toBe('SIGKILL');
    await world.spawnWorkers(1, env);

    await waitFor(
      async () => (await client.getBatch(batch.id)).status === 'completed',
      'the batch to complete',
      150_000,
    );
    const results = await client.batchResults(batch.id);
    expect(results.map((r) => r.status)).toEqual(Array(40).fill('confirmed'));
    const mined = await minedTransactions(world, startBlock);
    expect(mined).toHaveLength(40);
    expect(new Set(mined.map((tx) => tx.hash))).toEqual(new Set(results.map((r) => r.txHash)));
    const intents = await world.database.kysely
      .selectFrom('intents')
      .select(['id', 'nonce'])
      .execute();
    expect(intents).toHaveLength(40);
    // Each wallet's items took their nonces in input order, contiguous, through the kill.
    const nonceOf = new Map(intents.map((row) => [row.id, row.nonce!]));
    for (const wallet of world.wallets) {
      const nonces = results
        .filter((_, i) => items[i]!.from === wallet)
        .map((result) => nonceOf.get(result.intentId!)!);
      expect(nonces).toEqual(nonces.map((_, k) => nonces[0]! + k));
    }
    await expectBooksBalanced(world.database);
  });
});

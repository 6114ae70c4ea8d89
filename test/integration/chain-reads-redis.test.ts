import Redis from 'ioredis';
import { createPublicClient, http } from 'viem';
import type { Chain } from '../../chain/chain';
import { ownChainReads, type ChainReads, type ReadHead } from '../../chain/chain-reads';
import { createEvmChain } from '../../chain/evm-chain';
import { sharedChainReads, type ChainReadSharing } from '../../chain/shared-chain-reads';
import { freePort } from '../harness/stack/free-port';
import { evmChainSettings } from '../../workers/chain-settings';
import { sendTransfers } from '../harness/pending-transfers';
import { useWorld } from '../harness/test-world';

const world = useWorld({ proxy: true, redis: true, wallets: 1 });
// Long enough that a loaded machine cannot make "at once" look like "after the lease lapsed".
const leaseMs = 1500;

const clients: Redis[] = [];
const redisClient = (url = world.redis!.url) => {
  // No reconnecting: a client left reconnecting would outlive the test.
  const client = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => undefined);
  clients.push(client);
  return client;
};
afterEach(async () => {
  await Promise.all(
    clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())),
  );
});
beforeEach(async () => {
  await redisClient().flushall();
});

const sharing = (processId: string, more: Partial<ChainReadSharing> = {}): ChainReadSharing => ({
  processId,
  leaseMs,
  keepSeconds: 60,
  ...more,
});

/** A process's chain through the proxy (which counts every call), sharing its reads on Redis. */
const processChain = (processId: string): Chain =>
  createEvmChain({
    ...evmChainSettings(world.config()),
    shareReads: (chainId, own) => sharedChainReads(redisClient(), chainId, own, sharing(processId)),
  });

/** Reads whose head never comes: a process that died (or stalls) in the middle of its read. */
const stalled = (reads: ChainReads): ChainReads => ({
  ...reads,
  latestBlock: () => new Promise<ReadHead>(() => undefined),
});

describe('one reader per chain for the fleet (Redis)', () => {
  it('three processes looking at five transactions of one block read its head, receipts and balance once', async () => {
    const fleet = ['a', 'b', 'c'].map(processChain);
    await world.testClient.setAutomine(false);
    try {
      const signedAt = new Date();
      const transfers = await sendTransfers(world.chain, world.wallets[0]!, 5);
      expect(transfers.map((transfer) => transfer.outcome)).toEqual(Array(5).fill('sent'));
      const sent = transfers.map((transfer) => transfer.txHash);
      await world.testClient.mine({ blocks: 1 });
      world.proxy!.calls.splice(0);
      // All at once: on automine a head is fresh for a quarter poll only.
      const [seen, balances] = await Promise.all([
        Promise.all(
          fleet.flatMap((chain) => sent.map((txHash) => chain.observe(txHash, signedAt))),
        ),
        Promise.all(fleet.map((chain) => chain.walletBalance(world.wallets[0]!))),
      ]);
      expect(seen.map((s) => s.state)).toEqual(Array(15).fill('mined'));
      expect(new Set(balances).size).toBe(1);
      expect(world.proxy!.countsByMethod()).toEqual({
        eth_getBlockByNumber: 1,
        eth_getBlockReceipts: 1,
        eth_getBalance: 1,
      });
    } finally {
      await world.testClient.setAutomine(true);
    }
  });

  it('a reader that dies in the middle of its read is replaced once its lease lapses', async () => {
    const own = anvilReads();
    const dying = sharedChainReads(redisClient(), world.anvil.chainId, stalled(own), sharing('a'));
    const next = sharedChainReads(redisClient(), world.anvil.chainId, own, sharing('b'));
    void dying.latestBlock(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const asked = Date.now();
    const head = await next.latestBlock(0);
    expect(head.block.number).toBe(await world.chain.blockNumber(0));
    expect(Date.now() - asked).toBeGreaterThanOrEqual(leaseMs - 200);
  });

  it('a draining reader gives its lease back: the next asker reads at once', async () => {
    const own = anvilReads();
    const draining = sharedChainReads(
      redisClient(),
      world.anvil.chainId,
      stalled(own),
      sharing('a'),
    );
    const next = sharedChainReads(redisClient(), world.anvil.chainId, own, sharing('b'));
    void draining.latestBlock(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await draining.release();
    const asked = Date.now();
    await next.latestBlock(0);
    expect(Date.now() - asked).toBeLessThan(leaseMs / 2);
  });

  it('a reader whose read fails gives the turn back: the next asker reads at once', async () => {
    const own = anvilReads();
    let fail!: (error: Error) => void;
    const failing: ChainReads = {
      ...own,
      latestBlock: () => new Promise<ReadHead>((_, reject) => (fail = reject)),
    };
    const unlucky = sharedChainReads(redisClient(), world.anvil.chainId, failing, sharing('a'));
    const next = sharedChainReads(redisClient(), world.anvil.chainId, own, sharing('b'));
    const failed = unlucky.latestBlock(0).catch((error: Error) => error.message);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const asked = Date.now();
    const read = next.latestBlock(0);
    fail(new Error('the node timed out'));
    expect(await failed).toBe('the node timed out');
    await read;
    expect(Date.now() - asked).toBeLessThan(leaseMs / 2);
  });

  it('the lease moves to an asker when the holder is not reading, and publishes what it read', async () => {
    const own = anvilReads();
    const moved: string[] = [];
    const reader = (id: string) =>
      sharedChainReads(
        redisClient(),
        world.anvil.chainId,
        own,
        sharing(id, { onLeaseMoved: () => moved.push(id) }),
      );
    const [a, b, c] = [reader('a'), reader('b'), reader('c')];
    await a.latestBlock(0);
    await world.testClient.mine({ blocks: 1 });
    const read = await b.latestBlock(0);
    expect(moved).toEqual(['b']);
    // c takes what b published: the same head, b's read time, no turn of its own.
    expect(await c.latestBlock(5000)).toEqual(read);
    expect(moved).toEqual(['b']);
  });

  it('a process that cannot reach Redis reads for itself and says so', async () => {
    const unreachable = redisClient(`redis://127.0.0.1:${await freePort()}`);
    const problems: Error[] = [];
    const alone = sharedChainReads(
      unreachable,
      world.anvil.chainId,
      anvilReads(),
      sharing('a', { onUnshared: (error) => problems.push(error) }),
    );
    const head = await alone.latestBlock(0);
    expect(head.block.number).toBe(await world.chain.blockNumber(0));
    expect(problems.length).toBeGreaterThan(0);
  });
});

/** A process's own reads of the world's chain, straight to anvil. */
const anvilReads = (): ChainReads =>
  ownChainReads(createPublicClient({ transport: http(world.anvil.rpcUrl, { retryCount: 0 }) }));

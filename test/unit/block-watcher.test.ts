import type { PublicClient } from 'viem';
import { BlockWatcher } from '../../chain/block-watcher';
import { ownChainReads, type ChainReads } from '../../chain/chain-reads';
import type { Hex } from '../../domain/transfer';

const wallet: Hex = '0x00000000000000000000000000000000000000aa';
const hash = (label: string): Hex => `0x${Buffer.from(label).toString('hex').padEnd(64, '0')}`;

/** A node whose chain the test rewrites: blocks by number, each with its transactions. */
function fakeNode() {
  const chain: { hash: Hex; txs: Hex[]; to?: Hex }[] = [{ hash: hash('genesis'), txs: [] }];
  const blockAt = (number: number) => {
    const block = chain[number]!;
    return {
      number: BigInt(number),
      hash: block.hash,
      parentHash: number === 0 ? hash('none') : chain[number - 1]!.hash,
      baseFeePerGas: 1n,
      transactions: block.txs.map((txHash) => ({
        hash: txHash,
        from: wallet,
        to: block.to ?? null,
      })),
    };
  };
  const client = {
    getBlock: ({ blockHash }: { blockHash?: Hex }) =>
      Promise.resolve(
        blockAt(
          blockHash === undefined
            ? chain.length - 1
            : chain.findIndex((block) => block.hash === blockHash),
        ),
      ),
  } as unknown as PublicClient;
  return {
    client,
    mine: (label: string, txs: Hex[] = [], to?: Hex) => chain.push({ hash: hash(label), txs, to }),
    /** Drops the blocks from `number` on (a reorg), to be mined again differently. */
    dropFrom: (number: number) => chain.splice(number),
  };
}

/** maxAge -1 (or 0): every currentHead reads. */
const watcherOn = (
  client: PublicClient,
  blockTimeMs = 0,
  reads: ChainReads = ownChainReads(client),
) =>
  new BlockWatcher(client, reads, {
    wallets: [wallet],
    blockTimeMs,
    maxHole: 4,
    keep: 64,
    blockReceiptsCheaper: () => true,
  });

describe('the block watcher', () => {
  it('reads anew when asked for a 0 ms old head, even within the ms of its last read', async () => {
    const node = fakeNode();
    const watcher = watcherOn(node.client);
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-12-01T00:00:00Z'));
    try {
      await watcher.currentHead(0);
      node.mine('b1');
      expect((await watcher.currentHead(0)).block.number).toBe(1n);
      node.mine('b2');
      expect((await watcher.currentHead(5)).block.number).toBe(1n); // within its age: the kept head
    } finally {
      clock.mockRestore();
    }
  });

  it('finds a transaction in the block that has it, across a hole it fills', async () => {
    const node = fakeNode();
    const watcher = watcherOn(node.client);
    const signedAt = new Date(Date.now() - 5000);
    await watcher.currentHead(-1);
    node.mine('b1');
    node.mine('b2', [hash('tx')]);
    node.mine('b3');
    await watcher.currentHead(-1);
    const seen = watcher.sighting(hash('tx'), new Date());
    expect(seen.state === 'mined' && seen.block.number).toBe(2n);
    // Signed before the watcher started: it cannot say "not mined" for a transaction it missed.
    expect(watcher.sighting(hash('other'), signedAt)).toEqual({ state: 'not-covered' });
  });

  it('says not mined only for what was signed well after its coverage began, and before its last read', async () => {
    const node = fakeNode();
    const watcher = watcherOn(node.client);
    const t0 = Date.parse('2026-12-01T00:00:00Z');
    const clock = jest.spyOn(Date, 'now').mockReturnValue(t0);
    try {
      await watcher.currentHead(-1);
      node.mine('b1');
      clock.mockReturnValue(t0 + 5000);
      await watcher.currentHead(-1);
      const at = (ms: number) => new Date(t0 + ms);
      expect(watcher.sighting(hash('tx'), at(2000))).toEqual({ state: 'not-mined' });
      // Too close to the first read (another process's clock may be ahead), or after the last.
      expect(watcher.sighting(hash('tx'), at(500))).toEqual({ state: 'not-covered' });
      expect(watcher.sighting(hash('tx'), at(6000))).toEqual({ state: 'not-covered' });
    } finally {
      clock.mockRestore();
    }
  });

  it('follows a reorg: a transaction of a replaced block is no longer mined, its new block is', async () => {
    const node = fakeNode();
    const watcher = watcherOn(node.client);
    await watcher.currentHead(-1);
    node.mine('b1', [hash('tx')]);
    node.mine('b2');
    await watcher.currentHead(-1);
    expect(watcher.sighting(hash('tx'), new Date()).state).toBe('mined');

    node.dropFrom(1);
    node.mine('b1 again');
    node.mine('b2 again');
    node.mine('b3 again', [hash('tx')]);
    const head = await watcher.currentHead(-1);
    expect(head.block.hash).toBe(hash('b3 again'));
    const seen = watcher.sighting(hash('tx'), new Date());
    expect(seen.state === 'mined' && seen.block.hash).toBe(hash('b3 again'));
  });

  it('forgets the blocks above a shorter chain after a reorg', async () => {
    const node = fakeNode();
    const watcher = watcherOn(node.client);
    await watcher.currentHead(-1);
    node.mine('b1');
    node.mine('b2', [hash('tx')]);
    await watcher.currentHead(-1);
    node.dropFrom(1);
    node.mine('b1 again');
    await watcher.currentHead(-1);
    expect(watcher.sighting(hash('tx'), new Date(0)).state).not.toBe('mined');
  });

  it('expects the next block a block time after the head was seen, by whole slots when late', async () => {
    const node = fakeNode();
    const watcher = watcherOn(node.client, 1000);
    const t0 = Date.parse('2026-12-01T00:00:00Z');
    const clock = jest.spyOn(Date, 'now').mockReturnValue(t0);
    try {
      await watcher.currentHead(-1);
      expect(watcher.nextBlockDueAt(t0 + 400)).toBe(t0 + 1000);
      // The block due at +1000 did not come (a missed slot): the next one is due at +3000.
      expect(watcher.nextBlockDueAt(t0 + 2500)).toBe(t0 + 3000);
    } finally {
      clock.mockRestore();
    }
  });
});

describe('which blocks touched an address', () => {
  const other: Hex = '0x00000000000000000000000000000000000000bb';

  it('knows an address untouched only across blocks it kept, on the chain it follows', async () => {
    const node = fakeNode();
    const watcher = watcherOn(node.client);
    const { block: start } = await watcher.currentHead(-1);
    node.mine('b1');
    node.mine('b2', [hash('pay other')], other);
    const { block: head } = await watcher.currentHead(-1);
    expect(watcher.untouchedSince(other, head, start)).toBe(false);
    // Sent from our wallet: its sender is touched too.
    expect(watcher.untouchedSince(wallet, head, start)).toBe(false);
    const unrelated: Hex = '0x00000000000000000000000000000000000000cc';
    expect(watcher.untouchedSince(unrelated, head, start)).toBe(true);
    // A block the watcher never kept (another chain's): nothing can be said.
    expect(watcher.untouchedSince(unrelated, head, { number: 0n, hash: hash('elsewhere') })).toBe(
      false,
    );
  });
});

describe('the block watcher on a head read by another process', () => {
  it('takes a published head behind the one it has as an older view, not a reorg', async () => {
    const node = fakeNode();
    const own = ownChainReads(node.client);
    let published = await own.latestBlock(0);
    const reads: ChainReads = { ...own, latestBlock: () => Promise.resolve(published) };
    const watcher = watcherOn(node.client, 0, reads);
    await watcher.currentHead(-1);
    node.mine('b1');
    // Read a second ago by another process.
    const olderView = { ...(await own.latestBlock(0)), readAt: Date.now() - 1000 };
    node.mine('b2', [hash('tx')]);
    published = await own.latestBlock(0);
    await watcher.currentHead(-1);
    expect(watcher.sighting(hash('tx'), new Date()).state).toBe('mined');

    // Read by a process that fell behind (this one read for itself meanwhile).
    published = olderView;
    const head = await watcher.currentHead(-1);
    expect(head.block.number).toBe(2n);
    expect(watcher.sighting(hash('tx'), new Date()).state).toBe('mined');
  });
});

describe("a process's own reads", () => {
  it('refuse the receipts of a block the node does not have, as viem does', async () => {
    const client = { request: () => Promise.resolve(null) } as unknown as PublicClient;
    await expect(ownChainReads(client).blockReceipts(hash('gone'))).rejects.toMatchObject({
      name: 'BlockNotFoundError',
    });
  });
});

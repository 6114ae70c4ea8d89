import { NodeAnswerUnfitError } from '../domain/errors';
import type { PublicClient, TransactionReceipt } from 'viem';
import type { Hex } from '../domain/transfer';
import { formatReceipts, type ChainBlock, type ChainReads } from './chain-reads';

/** A block as the watcher keeps it: enough to follow the chain and find our transactions. */
export interface WatchedBlock {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  baseFeePerGas: bigint;
  /** Every transaction of the block. */
  transactions: ReadonlySet<Hex>;
  /** How many of them our wallets sent (what decides how their receipts are read). */
  ours: number;
  /** The hashes of those our wallets sent. */
  oursHashes: readonly Hex[];
  /** Every address a transaction of the block was sent from or to (lower case). */
  touched: ReadonlySet<string>;
}

export interface Head {
  block: WatchedBlock;
  /** When the head was read from the node (Date.now(), of the process that read it). */
  readAt: number;
}

/** Where a transaction stands in the blocks the watcher saw. */
export type Sighting =
  | { state: 'mined'; block: WatchedBlock; head: WatchedBlock }
  /** In no block up to the head, and every block since it was signed was read. */
  | { state: 'not-mined' }
  /** The watcher cannot tell (it missed blocks, or read the head before the signing). */
  | { state: 'not-covered' };

export interface BlockWatcherSettings {
  wallets: readonly Hex[];
  /** The chain's block time; 0 when unknown (anvil's automine). */
  blockTimeMs: number;
  /** Most blocks fetched to fill a hole between two heads; a bigger hole ends the coverage. */
  maxHole: number;
  /** Blocks kept behind the head. */
  keep: number;
  /** Which is cheaper for `ours` receipts of one block: one eth_getBlockReceipts, or one each. */
  blockReceiptsCheaper(ours: number): boolean;
}

/**
 * Margin between the signing time of a transaction (another process's clock) and the first block
 * it could be in: coverage must start this much before it.
 */
const clockMarginMs = 1000;

/**
 * Follows one chain's head for every confirmation look of the process: reads the head at most
 * once per `maxAgeMs` whoever asks, keeps the recent blocks with their transactions, follows
 * reorgs, and reads receipts once per block (or per transaction, whichever the provider's weights
 * make cheaper). So the cost of watching grows with blocks, not with intents.
 */
export class BlockWatcher {
  private readonly blocks = new Map<bigint, WatchedBlock>();
  private readonly minedIn = new Map<Hex, bigint>();
  private readonly receipts = new Map<Hex, Promise<TransactionReceipt | undefined>>();
  private readonly blockReceipts = new Map<Hex, Promise<Map<Hex, TransactionReceipt>>>();
  private readonly wallets: Set<string>;
  private head?: Head;
  /** When this process last asked for the head (a shared head may have been read before). */
  private checkedAt = 0;
  /** When the head's block was first read: its successor is due a block time later. */
  private headSeenAt = 0;
  /** Every block from the one first seen at this time on has been read. */
  private coveredSince = Number.POSITIVE_INFINITY;
  private reading?: Promise<Head>;

  constructor(
    private readonly client: PublicClient,
    private readonly reads: ChainReads,
    private readonly settings: BlockWatcherSettings,
  ) {
    this.wallets = new Set(settings.wallets.map((wallet) => wallet.toLowerCase()));
  }

  /**
   * The head, read again (one read for all askers) if the last read is older than `maxAgeMs`, or
   * once the next block is due — then at most every tenth of a block until it shows.
   */
  async currentHead(maxAgeMs: number): Promise<Head> {
    const { blockTimeMs } = this.settings;
    let freshWithinMs = maxAgeMs;
    // 0 asks for a read begun after the call (a head read in the same ms may predate a block).
    if (maxAgeMs === 0) return this.readHead(0);
    if (this.head) {
      const ageMs = Date.now() - this.checkedAt;
      const due = blockTimeMs > 0 && Date.now() >= this.headSeenAt + blockTimeMs;
      if (ageMs <= maxAgeMs && !(due && ageMs >= blockTimeMs / 10)) return this.head;
      if (due) freshWithinMs = Math.min(maxAgeMs, blockTimeMs / 10);
    }
    this.reading ??= this.readHead(freshWithinMs).finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** A wallet added at run time: its transactions count as ours from the next block read. */
  watchWallet(address: Hex): void {
    this.wallets.add(address.toLowerCase());
  }

  /**
   * When the next block is due (Date.now() time; only with a block time): blocks come a block
   * time apart (slots), counted from when the head was first seen, so a late or missed block
   * moves the due time on by whole slots.
   */
  nextBlockDueAt(now = Date.now()): number {
    const { blockTimeMs } = this.settings;
    const slots = Math.max(1, Math.ceil((now - this.headSeenAt) / blockTimeMs));
    return this.headSeenAt + slots * blockTimeMs;
  }

  /**
   * The kept blocks above `number` up to the head, oldest first; a block missed (not read) ends
   * them: what lies below it is left to the looks.
   */
  blocksAfter(number: bigint): WatchedBlock[] {
    const head = this.head?.block;
    const blocks: WatchedBlock[] = [];
    for (let at = head?.number ?? number; at > number; at--) {
      const block = this.blocks.get(at);
      if (!block) break;
      blocks.push(block);
    }
    return blocks.reverse();
  }

  /** ms since the head was last read; undefined before the first read. */
  headAgeMs(): number | undefined {
    return this.head && Date.now() - this.head.readAt;
  }

  /**
   * Whether no transaction of the blocks after `since` up to `block` was sent from or to
   * `address` — known only while every block between is kept and `block` descends from `since`.
   */
  untouchedSince(address: Hex, block: WatchedBlock, since: { number: bigint; hash: Hex }): boolean {
    const wanted = address.toLowerCase();
    let walked: WatchedBlock | undefined = block;
    while (walked && walked.number > since.number) {
      if (walked.touched.has(wanted)) return false;
      const parent = this.blocks.get(walked.number - 1n);
      walked = parent?.hash === walked.parentHash ? parent : undefined;
    }
    return walked?.hash === since.hash;
  }

  /** Where `txHash`, signed at `signedAt`, stands in the blocks read so far. */
  sighting(txHash: Hex, signedAt: Date): Sighting {
    const head = this.head;
    if (!head) return { state: 'not-covered' };
    const number = this.minedIn.get(txHash);
    const block = number === undefined ? undefined : this.blocks.get(number);
    if (block) return { state: 'mined', block, head: head.block };
    const since = signedAt.getTime() - clockMarginMs;
    return this.coveredSince <= since && head.readAt > signedAt.getTime()
      ? { state: 'not-mined' }
      : { state: 'not-covered' };
  }

  /** The receipt of our `txHash` mined in `block` (read once, shared by every asker). */
  async receiptIn(block: WatchedBlock, txHash: Hex): Promise<TransactionReceipt | undefined> {
    if (!this.settings.blockReceiptsCheaper(block.ours)) return this.receiptOf(txHash);
    let all = this.blockReceipts.get(block.hash);
    if (!all) {
      all = this.reads
        .blockReceipts(block.hash)
        .then(
          (receipts) =>
            new Map(formatReceipts(receipts).map((receipt) => [receipt.transactionHash, receipt])),
        );
      all.catch(() => this.blockReceipts.delete(block.hash));
      this.blockReceipts.set(block.hash, all);
    }
    return (await all).get(txHash);
  }

  /** A receipt by hash, asked of the node (one read per hash while it is wanted). */
  receiptOf(txHash: Hex): Promise<TransactionReceipt | undefined> {
    let receipt = this.receipts.get(txHash);
    if (!receipt) {
      receipt = this.client
        .getTransactionReceipt({ hash: txHash })
        .catch((error: unknown) => {
          if (error instanceof Error && error.name === 'TransactionReceiptNotFoundError') {
            return undefined;
          }
          throw error;
        })
        .finally(() => this.receipts.delete(txHash));
      this.receipts.set(txHash, receipt);
    }
    return receipt;
  }

  private async readHead(freshWithinMs: number): Promise<Head> {
    const read = await this.reads.latestBlock(freshWithinMs);
    this.checkedAt = Date.now();
    const latest = this.watched(read.block);
    const previous = this.head?.block;
    // A shared head read before the one this process has (it read for itself meanwhile): an
    // older view, not the chain going back.
    if (this.head && read.readAt < this.head.readAt) return this.head;
    if (!previous || latest.number > previous.number + BigInt(this.settings.maxHole) + 1n) {
      // Nothing to go on, or too many blocks missed to read them all: coverage starts afresh.
      this.coveredSince = Date.now();
    } else {
      await this.linkToKept(latest, Number(latest.number - previous.number) + this.settings.keep);
    }
    // A reorg to a shorter chain: the blocks above the new head are gone.
    for (const number of this.blocks.keys()) if (number > latest.number) this.forgetBlock(number);
    this.remember(latest);
    this.forgetOld(latest.number);
    if (latest.hash !== previous?.hash) this.headSeenAt = Date.now();
    this.head = { block: latest, readAt: read.readAt };
    return this.head;
  }

  /**
   * Walks back from `block` by parent hash until it meets a kept block it descends from, keeping
   * what it reads: fills a hole, follows a reorg, and checks that a head read elsewhere continues
   * the chain this process saw. A walk longer than `most` ends the coverage.
   */
  private async linkToKept(block: WatchedBlock, most: number): Promise<void> {
    const lowest = Math.min(...[...this.blocks.keys()].map(Number));
    let child = block;
    for (let steps = 0; steps < most; steps++) {
      if (Number(child.number) - 1 < lowest) return;
      if (this.blocks.get(child.number - 1n)?.hash === child.parentHash) return;
      const parent = this.watched(await this.reads.blockByHash(child.parentHash));
      if (parent.number !== child.number - 1n) {
        throw new NodeAnswerUnfitError({
          problem: `block ${child.hash}'s parent came back as block ${parent.number}`,
        });
      }
      this.remember(parent);
      child = parent;
    }
    this.coveredSince = Date.now();
  }

  private remember(block: WatchedBlock): void {
    const replaced = this.blocks.get(block.number);
    if (replaced?.hash === block.hash) return;
    if (replaced) {
      for (const txHash of replaced.transactions) {
        if (this.minedIn.get(txHash) === block.number) this.minedIn.delete(txHash);
      }
      this.blockReceipts.delete(replaced.hash);
    }
    this.blocks.set(block.number, block);
    for (const txHash of block.transactions) this.minedIn.set(txHash, block.number);
  }

  private forgetOld(headNumber: bigint): void {
    for (const number of this.blocks.keys()) {
      if (number <= headNumber - BigInt(this.settings.keep)) this.forgetBlock(number);
    }
  }

  private forgetBlock(number: bigint): void {
    const block = this.blocks.get(number);
    if (!block) return;
    this.blocks.delete(number);
    this.blockReceipts.delete(block.hash);
    for (const txHash of block.transactions) {
      if (this.minedIn.get(txHash) === number) this.minedIn.delete(txHash);
    }
  }

  private watched(block: ChainBlock): WatchedBlock {
    const ours = block.transactions.filter((transaction) =>
      this.wallets.has(transaction.from.toLowerCase()),
    );
    return {
      number: block.number,
      hash: block.hash,
      parentHash: block.parentHash,
      baseFeePerGas: block.baseFeePerGas,
      transactions: new Set(block.transactions.map((transaction) => transaction.hash)),
      ours: ours.length,
      oursHashes: ours.map((transaction) => transaction.hash),
      touched: new Set(
        block.transactions.flatMap(({ from, to }) =>
          to ? [from.toLowerCase(), to.toLowerCase()] : [from.toLowerCase()],
        ),
      ),
    };
  }
}

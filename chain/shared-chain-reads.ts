import type Redis from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RpcTransactionReceipt } from 'viem';
import type { Hex } from '../domain/transfer';
import type { ChainBlock, ChainReads, ReadHead } from './chain-reads';
import {
  headTurnScript,
  publishHeadScript,
  releaseScript,
  takeOrClaimScript,
  type SharingRedis,
} from './shared-chain-read-scripts';

export interface ChainReadSharing {
  /** Who this process is in the lease (unique per process). */
  processId: string;
  /**
   * How long a reader's lease outlives the start of its read: a reader that died mid-read is
   * replaced after this (a drained one at once: it gives the lease back).
   */
  leaseMs: number;
  /** How long a published block, receipt list or value is kept. */
  keepSeconds: number;
  /** Called when this process took the lease from another, before it reads. */
  onLeaseMoved?: () => void;
  /** Called with what this process could not share (Redis unreachable); it reads for itself. */
  onUnshared?: (error: Error) => void;
}

/** Between looks at a read another process is making. */
const waitStepMs = 20;

export interface SharedChainReads extends ChainReads {
  /** Gives the lease back (a drain): another process reads from its next ask. */
  release(): Promise<void>;
}

/**
 * The reads of one chain made once for every process that names the same Redis: the head by the
 * process holding the chain's reader lease, a block by hash, a block's receipts and a value of a
 * block's state (tip, balances) by whoever asks first. Every other process takes what was
 * published (its block watcher checks that a published head continues the chain it saw). Without
 * Redis, a process reads for itself, and `onUnshared` says so.
 */
export function sharedChainReads(
  redis: Redis,
  chainId: number,
  own: ChainReads,
  sharing: ChainReadSharing,
): SharedChainReads {
  const client = redis as SharingRedis;
  client.defineCommand('chainHeadTurn', { numberOfKeys: 2, lua: headTurnScript });
  client.defineCommand('chainPublishHead', { numberOfKeys: 3, lua: publishHeadScript });
  client.defineCommand('chainTakeOrClaim', { numberOfKeys: 2, lua: takeOrClaimScript });
  client.defineCommand('chainRelease', { numberOfKeys: 1, lua: releaseScript });
  const fleet = new FleetReads(client, chainId, own, sharing);
  return {
    latestBlock: (freshWithinMs) =>
      fleet.orAlone(
        () => fleet.latestBlock(freshWithinMs),
        () => own.latestBlock(freshWithinMs),
      ),
    blockByHash: (hash) =>
      fleet.orAlone(
        () => fleet.blockByHash(hash),
        () => own.blockByHash(hash),
      ),
    blockReceipts: (blockHash) =>
      fleet.orAlone(
        async () =>
          JSON.parse(
            await fleet.readOnce(`receipts:${blockHash}`, async () =>
              JSON.stringify(await own.blockReceipts(blockHash)),
            ),
          ) as RpcTransactionReceipt[],
        () => own.blockReceipts(blockHash),
      ),
    // Kept in this process per block too (own's memo): one Redis look per value and block.
    valueAt: (blockHash, name, read) =>
      own.valueAt(blockHash, name, () =>
        fleet.orAlone(
          async () =>
            BigInt(
              await fleet.readOnce(`value:${blockHash}:${name}`, async () => String(await read())),
            ),
          read,
        ),
      ),
    release: () => fleet.release(),
  };
}

/** One chain's reads shared through Redis: the lease on the head, and values read once. */
class FleetReads {
  private readonly lease: string;
  private readonly head: string;

  constructor(
    private readonly client: SharingRedis,
    private readonly chainId: number,
    private readonly own: ChainReads,
    private readonly sharing: ChainReadSharing,
  ) {
    this.lease = this.key('reader');
    this.head = this.key('head');
  }

  private key(name: string): string {
    return `chain-reads:${this.chainId}:${name}`;
  }

  private blockKey(hash: Hex): string {
    return this.key(`block:${hash}`);
  }

  /** Runs `shared`; when Redis fails, says so and runs `alone` instead. */
  async orAlone<T>(shared: () => Promise<T>, alone: () => Promise<T>): Promise<T> {
    let result: { value: T } | undefined;
    try {
      result = { value: await shared() };
    } catch (error) {
      if (!(error instanceof RedisFailed)) throw error;
      this.sharing.onUnshared?.(error.cause);
    }
    return result ? result.value : alone();
  }

  /** Publishes what this process read; Redis failing then only costs the others a read. */
  private publish(write: Promise<unknown>): Promise<unknown> {
    return write.catch((error: Error) => this.sharing.onUnshared?.(error));
  }

  private async readAndPublishHead(): Promise<ReadHead> {
    const { client, lease, sharing } = this;
    // A failed read gives the lease back: the next asker tries at once, not after the lease.
    const read = await this.own.latestBlock(0).catch(async (error: unknown) => {
      await client.chainRelease(lease, sharing.processId).catch(() => undefined);
      throw error;
    });
    await this.publish(
      client.chainPublishHead(
        lease,
        this.head,
        this.blockKey(read.block.hash),
        sharing.processId,
        encodeBlock(read.block),
        read.readAt,
        sharing.keepSeconds,
      ),
    );
    return read;
  }

  async latestBlock(freshWithinMs: number): Promise<ReadHead> {
    const { processId: me, leaseMs } = this.sharing;
    let notBefore = 0;
    const waitUntil = Date.now() + 2 * leaseMs;
    for (;;) {
      const [turn, ...rest] = await redisCall(
        this.client.chainHeadTurn(
          this.lease,
          this.head,
          me,
          leaseMs,
          Math.max(0, Math.floor(freshWithinMs)),
          notBefore,
        ),
      );
      if (turn === 'head') return { block: decodeBlock(rest[0]!), readAt: Number(rest[1]) };
      if (turn === 'read') {
        if (rest[0] && rest[0] !== me) this.sharing.onLeaseMoved?.();
        return this.readAndPublishHead();
      }
      // Another process is reading it: its lease lapses if it dies, and the turn comes here.
      notBefore = Number(rest[0]);
      if (Date.now() > waitUntil) return this.own.latestBlock(0);
      await sleep(waitStepMs);
    }
  }

  async blockByHash(hash: Hex): Promise<ChainBlock> {
    const published = await redisCall(this.client.get(this.blockKey(hash)));
    if (published) return decodeBlock(published);
    const block = await this.own.blockByHash(hash);
    await this.publish(
      this.client.set(this.blockKey(hash), encodeBlock(block), 'EX', this.sharing.keepSeconds),
    );
    return block;
  }

  /**
   * A value published for the fleet under `name`, read by whoever claims it first; a claim lasts
   * as long as the head's lease.
   */
  async readOnce(name: string, read: () => Promise<string>): Promise<string> {
    const { processId: me, leaseMs, keepSeconds } = this.sharing;
    const claim = this.key(`claim:${name}`);
    const waitUntil = Date.now() + leaseMs;
    for (;;) {
      const [state, value] = await redisCall(
        this.client.chainTakeOrClaim(this.key(name), claim, me, leaseMs),
      );
      if (state === 1) return String(value);
      if (state === 2) {
        // A failed read gives the claim back: the next asker reads at once.
        const fresh = await read().catch(async (error: unknown) => {
          await this.client.del(claim).catch(() => undefined);
          throw error;
        });
        await this.publish(this.client.set(this.key(name), fresh, 'EX', keepSeconds));
        return fresh;
      }
      // A claim that outlives its time (its reader died): read without it.
      if (Date.now() > waitUntil) return read();
      await sleep(waitStepMs);
    }
  }

  async release(): Promise<void> {
    await this.client.chainRelease(this.lease, this.sharing.processId).catch(() => undefined);
  }
}

const encodeBlock = (block: ChainBlock): string =>
  JSON.stringify({
    ...block,
    number: String(block.number),
    baseFeePerGas: String(block.baseFeePerGas),
  });

function decodeBlock(text: string): ChainBlock {
  const block = JSON.parse(text) as Omit<ChainBlock, 'number' | 'baseFeePerGas'> & {
    number: string;
    baseFeePerGas: string;
  };
  return { ...block, number: BigInt(block.number), baseFeePerGas: BigInt(block.baseFeePerGas) };
}

/** A Redis command failed (down, restarting, refused): the read goes on without sharing. */
class RedisFailed extends Error {
  override readonly name = 'RedisFailed';
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

const redisCall = <T>(command: Promise<T>): Promise<T> =>
  command.catch((error: Error) => {
    throw new RedisFailed(error);
  });

import type Redis from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RpcTransactionReceipt } from 'viem';
import type { Hex } from '../domain/transfer';
import type { ChainBlock, ChainReads, ReadHead } from './chain-reads';

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

/**
 * One turn at the head for the fleet, on Redis's clock. A head published late enough is taken
 * as it is. Otherwise the lease decides who reads it: the process holding it while its read runs
 * (it took the lease after the last publication), any asker once the holder is not reading (the
 * lease moves to it) or its lease lapsed (it died reading). The others wait for the publication.
 * KEYS: lease, head. ARGV: me, lease ms, fresh within ms, not before (0: now − fresh).
 * Returns {'head', block, readAt} | {'wait', notBefore} | {'read', previous holder or ''}.
 */
const headTurnScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local notBefore = tonumber(ARGV[4])
if notBefore == 0 then notBefore = now - tonumber(ARGV[3]) end
local head = redis.call('HMGET', KEYS[2], 'at', 'readAt', 'block')
local at = tonumber(head[1] or '-1')
if head[3] and at >= notBefore then return {'head', head[3], head[2]} end
local lease = redis.call('HMGET', KEYS[1], 'holder', 'since')
local holder = lease[1]
if holder and holder ~= ARGV[1] and tonumber(lease[2]) > at then
  return {'wait', tostring(notBefore)}
end
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'since', now)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {'read', holder or ''}
`;

/**
 * The head as the reader read it, published while it holds the lease (a reader replaced
 * meanwhile only stores the block: the head is its successor's to publish).
 * KEYS: lease, head, block by hash. ARGV: me, block, readAt, keep seconds.
 */
const publishHeadScript = `
redis.call('SET', KEYS[3], ARGV[2], 'EX', ARGV[4])
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[2], 'at', now, 'readAt', ARGV[3], 'block', ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
`;

/**
 * A value read once for the fleet: {1, value} when published; {2} when this asker claimed the
 * read; {0} while another's claim runs. KEYS: value, claim. ARGV: me, claim ms.
 */
const takeOrClaimScript = `
local value = redis.call('GET', KEYS[1])
if value then return {1, value} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {2} end
return {0}
`;

/** KEYS: lease. ARGV: me. */
const releaseScript = `
if redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

type SharingRedis = Redis & {
  chainHeadTurn(lease: string, head: string, ...argv: (string | number)[]): Promise<string[]>;
  chainPublishHead(
    lease: string,
    head: string,
    block: string,
    ...argv: (string | number)[]
  ): Promise<number>;
  chainTakeOrClaim(value: string, claim: string, me: string, claimMs: number): Promise<unknown[]>;
  chainRelease(lease: string, me: string): Promise<number>;
};

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
  const { processId: me, leaseMs, keepSeconds } = sharing;
  const key = (name: string) => `chain-reads:${chainId}:${name}`;
  const lease = key('reader');
  const head = key('head');
  const blockKey = (hash: Hex) => key(`block:${hash}`);

  /** Runs `shared`; when Redis fails, says so and runs `alone` instead. */
  async function orAlone<T>(shared: () => Promise<T>, alone: () => Promise<T>): Promise<T> {
    let result: { value: T } | undefined;
    try {
      result = { value: await shared() };
    } catch (error) {
      if (!(error instanceof RedisFailed)) throw error;
      sharing.onUnshared?.(error.cause);
    }
    return result ? result.value : alone();
  }

  /** Publishes what this process read; Redis failing then only costs the others a read. */
  const publish = (write: Promise<unknown>) =>
    write.catch((error: Error) => sharing.onUnshared?.(error));

  async function readAndPublishHead(): Promise<ReadHead> {
    // A failed read gives the lease back: the next asker tries at once, not after the lease.
    const read = await own.latestBlock(0).catch(async (error: unknown) => {
      await client.chainRelease(lease, me).catch(() => undefined);
      throw error;
    });
    await publish(
      client.chainPublishHead(
        lease,
        head,
        blockKey(read.block.hash),
        me,
        encodeBlock(read.block),
        read.readAt,
        keepSeconds,
      ),
    );
    return read;
  }

  async function latestBlock(freshWithinMs: number): Promise<ReadHead> {
    let notBefore = 0;
    const waitUntil = Date.now() + 2 * leaseMs;
    for (;;) {
      const [turn, ...rest] = await redisCall(
        client.chainHeadTurn(
          lease,
          head,
          me,
          leaseMs,
          Math.max(0, Math.floor(freshWithinMs)),
          notBefore,
        ),
      );
      if (turn === 'head') return { block: decodeBlock(rest[0]!), readAt: Number(rest[1]) };
      if (turn === 'read') {
        if (rest[0] && rest[0] !== me) sharing.onLeaseMoved?.();
        return readAndPublishHead();
      }
      // Another process is reading it: its lease lapses if it dies, and the turn comes here.
      notBefore = Number(rest[0]);
      if (Date.now() > waitUntil) return own.latestBlock(0);
      await sleep(waitStepMs);
    }
  }

  /**
   * A value published for the fleet under `name`, read by whoever claims it first; a claim lasts
   * as long as the head's lease.
   */
  async function readOnce(name: string, read: () => Promise<string>): Promise<string> {
    const waitUntil = Date.now() + leaseMs;
    for (;;) {
      const [state, value] = await redisCall(
        client.chainTakeOrClaim(key(name), key(`claim:${name}`), me, leaseMs),
      );
      if (state === 1) return String(value);
      if (state === 2) {
        // A failed read gives the claim back: the next asker reads at once.
        const fresh = await read().catch(async (error: unknown) => {
          await client.del(key(`claim:${name}`)).catch(() => undefined);
          throw error;
        });
        await publish(client.set(key(name), fresh, 'EX', keepSeconds));
        return fresh;
      }
      // A claim that outlives its time (its reader died): read without it.
      if (Date.now() > waitUntil) return read();
      await sleep(waitStepMs);
    }
  }

  return {
    latestBlock: (freshWithinMs) =>
      orAlone(
        () => latestBlock(freshWithinMs),
        () => own.latestBlock(freshWithinMs),
      ),
    blockByHash: (hash) =>
      orAlone(
        async () => {
          const published = await redisCall(client.get(blockKey(hash)));
          if (published) return decodeBlock(published);
          const block = await own.blockByHash(hash);
          await publish(client.set(blockKey(hash), encodeBlock(block), 'EX', keepSeconds));
          return block;
        },
        () => own.blockByHash(hash),
      ),
    blockReceipts: (blockHash) =>
      orAlone(
        async () =>
          JSON.parse(
            await readOnce(`receipts:${blockHash}`, async () =>
              JSON.stringify(await own.blockReceipts(blockHash)),
            ),
          ) as RpcTransactionReceipt[],
        () => own.blockReceipts(blockHash),
      ),
    // Kept in this process per block too (own's memo): one Redis look per value and block.
    valueAt: (blockHash, name, read) =>
      own.valueAt(blockHash, name, () =>
        orAlone(
          async () =>
            BigInt(await readOnce(`value:${blockHash}:${name}`, async () => String(await read()))),
          read,
        ),
      ),
    async release() {
      await client.chainRelease(lease, me).catch(() => undefined);
    },
  };
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

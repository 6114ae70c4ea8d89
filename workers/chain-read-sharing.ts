import type Redis from 'ioredis';
import type { ChainReads } from '../chain/chain-reads';
import { blocksKept } from '../chain/evm/settings';
import { sharedChainReads, type SharedChainReads } from '../chain/shared-chain-reads';
import type { Failpoints } from '../activities/failpoints';
import type { RelayerConfig } from './config/load';
import { log } from '../domain/log';

export interface ChainReadSharing {
  share(chainId: number, own: ChainReads): ChainReads;
  /** Gives every reader lease of this process back (a drain hands them over at once). */
  release(): Promise<void>;
}

/**
 * One warning per chain per minute: a process reading for itself is expected while Redis is away.
 */
const warnEveryMs = 60_000;

/**
 * The fleet's reads of each chain (head, receipts, balances, tip) shared through REDIS_URL: read
 * once per block by one process, taken by the others from Redis.
 */
export function chainReadSharing(
  redis: Redis,
  config: RelayerConfig,
  processId: string,
  failpoints?: Failpoints,
): ChainReadSharing {
  const readers: SharedChainReads[] = [];
  // A reader that died mid-read is replaced after two blocks (two seconds at least: a read may
  // wait for the RPC budget).
  const leaseMs = Math.max(2 * config.blockTimeMs, 2000);
  // As long as the block watcher keeps blocks, two minutes at least.
  const keepSeconds = Math.max(
    120,
    Math.ceil((blocksKept(config.confirmations) * config.blockTimeMs) / 1000),
  );
  return {
    share(chainId, own) {
      let warnedAt = -warnEveryMs;
      let unshared = 0;
      const reader = sharedChainReads(redis, chainId, own, {
        processId,
        leaseMs,
        keepSeconds,
        onLeaseMoved: () => failpoints?.reach('after-lease-moved'),
        onUnshared(error) {
          unshared++;
          if (Date.now() - warnedAt < warnEveryMs) return;
          warnedAt = Date.now();
          log.warn(
            `chain ${chainId}: cannot share reads through Redis (${error.message}); this process ` +
              `read for itself ${unshared} time(s) since the last warning, spending its own RPC ` +
              `budget: check that the Redis at REDIS_URL is up and reachable from here`,
          );
          unshared = 0;
        },
      });
      readers.push(reader);
      return reader;
    },
    async release() {
      await Promise.all(readers.map((reader) => reader.release()));
    },
  };
}

import { Counter, type Registry } from 'prom-client';
import type { ChainRegistry } from '../chain/chain';
import { decideBlockSightings } from '../domain/block-sightings';
import { log } from '../domain/log';
import type { Hex } from '../domain/transfer';
import {
  anyConfirming,
  confirmingIntentsThatSent,
  newestAttemptsInFlight,
} from '../store/attempts-in-flight';
import type { Database } from '../store/database';
import type { FollowerLease } from './follower-lease';

export interface BlockFollowerSettings {
  database: Database;
  chains: ChainRegistry;
  metrics: Registry;
  lease: FollowerLease;
  /** Wakes a payment's workflow (transactionSeenSignal); a workflow that ended is no error. */
  wake(intentId: string): Promise<void>;
}

/**
 * Follows each chain's new blocks while payments wait for confirmations there, and wakes the
 * payments they concern (domain/block-sightings.ts) — so a mined payment is seen within a block,
 * not at its next spaced look, which stays the fallback. One follower per chain where Redis is
 * shared (the lease), each process for itself without. Its head reads are the watched head the
 * looks share: following adds no read while looks run, and none while nothing is in flight.
 */
export function followBlocks({ database, chains, metrics, lease, wake }: BlockFollowerSettings): {
  stop(): Promise<void>;
} {
  const woken = new Counter({
    name: 'relayer_block_follower_wakes_total',
    help: 'Payments woken by the block follower: a block mined their transaction, or outbid it',
    labelNames: ['chain_id', 'why'],
    registers: [metrics],
  });
  let stopped = false;
  // A stop ends the waits between looks at once: a chain with 12 s blocks would hold a drain.
  const waking = new Set<() => void>();
  const pauseFor = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        waking.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waking.add(done);
    });
  const loops = chains.chainIds.map(async (chainId) => {
    const chain = chains.get(chainId);
    let after: bigint | undefined;
    let toldOutbid = new Set<Hex>();
    while (!stopped) {
      await pauseFor(Math.max(50, chain.nextLookInMs()));
      if (stopped) break;
      try {
        if (!(await anyConfirming(database.kysely, chainId)) || !(await lease.holds(chainId))) {
          after = undefined;
          continue;
        }
        const seen = await chain.blocksSince(after);
        if (after !== undefined && seen.head <= after) continue;
        after = seen.head;
        const [mined, inFlight] = await Promise.all([
          confirmingIntentsThatSent(database.kysely, chainId, seen.ours),
          newestAttemptsInFlight(database.kysely, chainId),
        ]);
        const sightings = decideBlockSightings({
          mined,
          inFlight,
          baseFeePerGas: seen.baseFeePerGas,
          toldOutbid,
        });
        toldOutbid = sightings.toldOutbid;
        const minedSet = new Set(mined);
        // One wake failing (its workflow unreachable) leaves the others woken.
        const wakes = await Promise.allSettled(
          sightings.wake.map(async (intentId) => {
            await wake(intentId);
            const why = minedSet.has(intentId) ? 'mined' : 'outbid';
            woken.inc({ chain_id: String(chainId), why });
          }),
        );
        const failed = wakes.filter((each) => each.status === 'rejected');
        if (failed.length > 0) {
          const { reason } = failed[0] as PromiseRejectedResult;
          log.warn(
            `block follower on chain ${chainId}: ${failed.length} payment(s) not woken (their spaced looks still come): ${(reason as Error).message}`,
          );
        }
      } catch (error) {
        // The spaced looks still come: a failed follow only leaves them to it for a block.
        log.warn(`block follower on chain ${chainId}: ${(error as Error).message}`);
      }
    }
  });
  return {
    async stop() {
      stopped = true;
      for (const done of [...waking]) done();
      await Promise.all(loops);
      await lease.release();
    },
  };
}

import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import { Registry } from 'prom-client';
import { createActivities } from '../../activities';
import { createChainRegistry, createEvmChain } from '../../chain/evm-chain';
import { systemClock } from '../../activities/dependencies';
import { openDatabase } from '../../store/database';
import { RelayerError } from '../../domain/errors';
import { evmChainsSettings } from '../../workers/chain-settings';
import { loadConfig } from '../../workers/config/load';
import { startQuotaThrottle } from '../../workers/quota-throttle';
import { classifyFailure, RunStats } from '../../workers/run-stats';

/**
 * The benchmark's arm A: the relayer's own activities, called one step after another for each
 * intent inside a bounded in-process pool (p-limit, POOL_WIDTH wide), under the same Bottleneck
 * quota, with no Temporal at all. What durability is measured against; not a way to run the
 * relayer (a crash here loses track of every intent in flight).
 *
 * Takes the `authorized` intents of BENCH_TENANT as they are admitted (its share of them when
 * BENCH_SHARDS processes run: by a hash of the id) until BENCH_COUNT have been admitted and each
 * of its own has ended; then waits for SIGTERM.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const logger = new DefaultLogger('ERROR');
/** Counts every step attempt as a worker does, for the same `pool stopped: …` line. */
const stats = new RunStats(new Registry());

/** One step, retried the way the workflow's retry policy would, without Temporal. */
async function step<P, R>(
  activityType: string,
  activity: (parameters: P) => Promise<R>,
  parameters: P,
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      const environment = new MockActivityEnvironment(
        { activityType, attempt },
        { logger, interceptors: [stats.interceptor] },
      );
      return await environment.run(activity, parameters);
    } catch (error) {
      if (classifyFailure(error, false) === 'failed') throw error;
      const backoffMs = Math.min(30_000, 500 * 2 ** (attempt - 1));
      await sleep(error instanceof RelayerError ? (error.retryAfterMs ?? backoffMs) : backoffMs);
    }
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const tenant = process.env.BENCH_TENANT!;
  const shard = Number(process.env.BENCH_SHARD ?? 0);
  const shards = Number(process.env.BENCH_SHARDS ?? 1);
  const count = Number(process.env.BENCH_COUNT);
  const mine = (id: string) => createHash('sha1').update(id).digest()[0]! % shards === shard;
  const db = await openDatabase(config.databaseUrl, { homeChainId: config.chainId });
  const chains = createChainRegistry(evmChainsSettings(config).map(createEvmChain));
  const throttle = await startQuotaThrottle(config);
  const activities = createActivities({
    db,
    chains,
    throttle,
    clock: systemClock,
    permitReleaseQueue: 'none',
  });
  async function settle(intentId: string): Promise<void> {
    const permitId = `${intentId}/pool`;
    for (;;) {
      const grant = await throttle.acquire(permitId);
      if (grant.granted) break;
      await sleep(grant.retryAfterMs);
    }
    try {
      await step('markSettling', activities.markSettling, { intentId });
      await step('hold', activities.hold, { intentId });
      await step('broadcast', activities.broadcast, { intentId });
    } catch (error) {
      await step('closeIntent', activities.closeIntent, { intentId, reason: String(error) });
      return;
    } finally {
      throttle.release(permitId);
    }
    for (;;) {
      const result = await step('confirm', activities.confirm, { intentId });
      if (result.state !== 'pending') return;
      await sleep(result.retryAfterMs);
    }
  }

  console.log('pool ready');
  const limit = pLimit(config.poolWidth);
  const taken = new Set<string>();
  const running: Promise<void>[] = [];
  for (;;) {
    // Counted before the waiting ones are read: every intent counted is then among them (or
    // taken already), so none admitted meanwhile is left behind when the count is reached.
    const { n } = await db.kysely
      .selectFrom('intents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenant)
      .executeTakeFirstOrThrow();
    const waiting = await db.kysely
      .selectFrom('intents')
      .select('id')
      .where('tenant_id', '=', tenant)
      .where('status', '=', 'authorized')
      .execute();
    for (const { id } of waiting) {
      if (taken.has(id) || !mine(id)) continue;
      taken.add(id);
      running.push(limit(() => settle(id)));
    }
    if (Number(n) >= count) break;
    await sleep(100);
  }
  await Promise.all(running);
  console.log(`pool stopped: ${stats.summary()}`);
  await throttle.close();
  await db.close();
  // Kept alive (a listener alone would not keep it) until the benchmark has read what the
  // process used and sends SIGTERM.
  const alive = setInterval(() => undefined, 60_000);
  await new Promise((resolve) => process.once('SIGTERM', resolve));
  clearInterval(alive);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import { createActivities } from '../activities';
import { createChainRegistry, createEvmChain } from '../activities/chain/evm-chain';
import { systemClock } from '../activities/dependencies';
import { openDatabase } from '../activities/store/database';
import { quotaLimiterId, Throttle } from '../activities/throttle/throttle';
import { ErrorType, nonRetryableErrorTypes, RelayerError } from '../domain/errors';
import { evmChainsSettings } from '../workers/chain-settings';
import { loadConfig } from '../workers/config';

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

/** Step attempts run again, as a worker counts them in its `pool stopped: …` line. */
const again = { retry: 0, paced: 0 };

/** One step, retried the way the workflow's retry policy would, without Temporal. */
async function step<P, R>(activity: (parameters: P) => Promise<R>, parameters: P): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await new MockActivityEnvironment(undefined, { logger }).run(activity, parameters);
    } catch (error) {
      if (error instanceof RelayerError && nonRetryableErrorTypes.includes(error.name)) throw error;
      if (error instanceof RelayerError && error.name === ErrorType.sendPaced) again.paced++;
      else again.retry++;
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
  const db = await openDatabase(config.databaseUrl);
  const chains = createChainRegistry(evmChainsSettings(config).map(createEvmChain));
  const throttle = await Throttle.start(
    config,
    config.redisUrl === undefined
      ? undefined
      : { redisUrl: config.redisUrl, limiterId: quotaLimiterId(config.taskQueue, config.chainId) },
  );
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
      await step(activities.markSettling, { intentId });
      await step(activities.hold, { intentId });
      await step(activities.broadcast, { intentId });
    } catch (error) {
      await step(activities.closeIntent, { intentId, reason: String(error) });
      return;
    } finally {
      throttle.release(permitId);
    }
    for (;;) {
      const result = await step(activities.confirm, { intentId });
      if (result.state !== 'pending') return;
      await sleep(result.retryAfterMs);
    }
  }

  console.log('pool ready');
  const limit = pLimit(config.poolWidth);
  const taken = new Set<string>();
  const running: Promise<void>[] = [];
  for (let admitted = 0; admitted < count;) {
    const rows = await db.kysely
      .selectFrom('intents')
      .select(['id', 'status'])
      .where('tenant_id', '=', tenant)
      .execute();
    admitted = rows.length;
    for (const { id, status } of rows) {
      if (status !== 'authorized' || taken.has(id) || !mine(id)) continue;
      taken.add(id);
      running.push(limit(() => settle(id)));
    }
    if (admitted < count) await sleep(100);
  }
  await Promise.all(running);
  console.log(`pool done: ${taken.size} intents, retry ${again.retry}, paced ${again.paced}`);
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

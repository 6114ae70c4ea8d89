import { NativeConnection } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createActivities } from '../activities';
import { createChainRegistry, createEvmChain } from '../activities/chain/evm-chain';
import { systemClock } from '../activities/dependencies';
import { openDatabase, type Database } from '../activities/store/database';
import { registerWallet } from '../activities/store/wallet-nonces';
import { quotaLimiterId, Throttle } from '../activities/throttle/throttle';
import { permitReleaseTaskQueue } from '../domain/task-queues';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { RelayerConfig } from './config';
import { startMetricsServer } from './metrics-server';
import { RunStats } from './run-stats';
import { ensureSearchAttributes } from './ensure-search-attributes';
import { createRelayerWorker, type RelayerWorker } from './relayer-worker';

export interface RelayerProcess {
  readonly processId: string;
  readonly database: Database;
  readonly worker: RelayerWorker;
  readonly metrics: Registry;
  /** Settles when the worker stops; rejects if it fails. */
  readonly done: Promise<void>;
  /** Drains the worker (see RelayerWorker.shutdown), then closes connections. */
  stop(): Promise<void>;
}

const newProcessId = (): string => `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

/** Everything one worker process runs, built from its configuration. */
export async function startRelayerProcess(config: RelayerConfig): Promise<RelayerProcess> {
  const processId = newProcessId();
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const database = await openDatabase(config.databaseUrl);
  const chain = createEvmChain({
    chainId: config.chainId,
    rpcUrls: config.rpcUrls,
    hotWalletKeys: config.hotWalletKeys,
    confirmations: config.confirmations,
    pollIntervalMs: config.pollIntervalMs,
    rpcTimeoutMs: config.rpcTimeoutMs,
  });
  const chains = createChainRegistry([chain]);
  for (const address of chain.walletAddresses) {
    await registerWallet(
      database,
      { chainId: chain.chainId, address },
      await chain.pendingNonce(address),
    );
  }
  const throttle = await Throttle.start(
    config,
    config.redisUrl === undefined
      ? undefined
      : {
          redisUrl: config.redisUrl,
          limiterId: quotaLimiterId(config.taskQueue, config.chainId),
        },
  );
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  await ensureSearchAttributes(connection, config.temporalNamespace);
  const worker = await createRelayerWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    processId,
    activities: createActivities({
      db: database,
      chains,
      throttle,
      clock: systemClock,
      permitReleaseQueue: permitReleaseTaskQueue(config.taskQueue, processId),
    }),
    poolWidth: config.poolWidth,
    throttleWaiters: Math.max(100, Math.ceil((config.perSecond * config.maxWaitMs) / 1000)),
    drainTimeoutMs: config.drainTimeoutMs,
    stats: new RunStats(metrics),
  });
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(metrics, config.metricsPort);
  const done = worker.run();
  return {
    processId,
    database,
    worker,
    metrics,
    done,
    async stop() {
      await worker.shutdown();
      await done;
      await metricsServer?.close();
      await throttle.close();
      await connection.close();
      await database.close();
    },
  };
}

import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createActivities } from '../activities';
import { createChainRegistry, createEvmChain } from '../chain/evm-chain';
import { systemClock } from '../activities/dependencies';
import { openDatabase, type Database } from '../store/database';
import { registerWallet } from '../store/wallet-nonces';
import { crashingFailpoints } from '../activities/failpoints';
import { serverPacedPermits } from '../throttle/server-paced-permits';
import { permitReleaseTaskQueue } from '../domain/task-queues';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { buildApi, type RelayerApi } from '../api/server';
import type { AdmissionLimits } from '../operations/admission';
import { resumeOrphanedBatches, resumeOrphanedIntents } from '../activities/resume-orphans';
import type { RelayerConfig } from './config';
import { startMetricsServer } from './metrics-server';
import { startQuotaThrottle } from './quota-throttle';
import { RunStats } from './run-stats';
import { ensureSearchAttributes } from './ensure-search-attributes';
import { createRelayerWorker, type RelayerWorker } from './relayer-worker';
import { evmChainsSettings } from './chain-settings';
import { rpcResponseCounter } from './rpc-metrics';

export interface RelayerProcess {
  readonly processId: string;
  readonly database: Database;
  readonly worker: RelayerWorker;
  readonly metrics: Registry;
  /** The HTTP API, when API_PORT is set; its URL. */
  readonly apiUrl?: string;
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
  const chains = createChainRegistry(
    evmChainsSettings(config, rpcResponseCounter(metrics)).map(createEvmChain),
  );
  for (const chainId of chains.chainIds) {
    const chain = chains.get(chainId);
    // Catches the wallet up with the chain (used elsewhere while we were down) before any send.
    for (const address of chain.walletAddresses) {
      await registerWallet(database, { chainId, address }, await chain.pendingNonce(address));
    }
  }
  const serverQuota = config.quotaMode === 'task-queue';
  const throttle = serverQuota ? undefined : await startQuotaThrottle(config);
  if (throttle) {
    new Gauge({
      name: 'relayer_permits_in_use',
      help: 'RPC permits this process holds right now (sends in flight)',
      registers: [metrics],
      collect() {
        this.set(throttle.inFlight);
      },
    });
  }
  const failpoints = config.crashAt && crashingFailpoints(config.crashAt);
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
      throttle: throttle ?? serverPacedPermits,
      clock: systemClock,
      permitReleaseQueue: permitReleaseTaskQueue(config.taskQueue, processId),
      admission: admissionLimits(config),
      failpoints,
    }),
    poolWidth: config.poolWidth,
    throttleWaiters: Math.max(100, Math.ceil((config.perSecond * config.maxWaitMs) / 1000)),
    drainTimeoutMs: config.drainTimeoutMs,
    stats: new RunStats(metrics),
    ...(serverQuota && { serverQuotaPerSecond: config.perSecond }),
    maxCachedWorkflows: config.maxCachedWorkflows,
    failpoints,
  });
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(metrics, config.metricsPort);
  const done = worker.run();
  const api =
    config.apiPort === undefined
      ? undefined
      : await startApi(config, { database, chains, metrics }, config.apiPort);
  return {
    processId,
    database,
    worker,
    metrics,
    apiUrl: api?.url,
    done,
    async stop() {
      api?.startClosing();
      await worker.shutdown();
      await done;
      await api?.close();
      await metricsServer?.close();
      await throttle?.close();
      await connection.close();
      await database.close();
    },
  };
}

const orphanSweepMs = 60_000;

/**
 * The API of this process, sharing its database, chains and metrics. It also starts, once a
 * minute, the workflow of any intent or batch left without one (resume-orphaned-intents.ts).
 */
async function startApi(
  config: RelayerConfig,
  shared: { database: Database; chains: ReturnType<typeof createChainRegistry>; metrics: Registry },
  port: number,
): Promise<{ url: string; startClosing(): void; close(): Promise<void> }> {
  const connection = await Connection.connect({ address: config.temporalAddress });
  const client = new Client({ connection, namespace: config.temporalNamespace });
  const api: RelayerApi = await buildApi({
    database: shared.database,
    client,
    chains: shared.chains,
    taskQueue: config.taskQueue,
    admission: admissionLimits(config),
    registry: shared.metrics,
  });
  const address = await api.app.listen({ port, host: config.apiHost });
  const sweep = async () => {
    const options = { olderThanMs: orphanSweepMs };
    try {
      await resumeOrphanedIntents(shared.database, client, config.taskQueue, options);
      await resumeOrphanedBatches(shared.database, client, config.taskQueue, options);
    } catch (error) {
      console.error('resuming orphaned intents and batches failed', error);
    }
  };
  const sweeper = setInterval(() => void sweep(), orphanSweepMs);
  return {
    url: address,
    startClosing: api.startClosing,
    async close() {
      clearInterval(sweeper);
      await api.app.close();
      await connection.close();
    },
  };
}

const admissionLimits = (config: RelayerConfig): AdmissionLimits => ({
  tenantMaxInFlight: config.tenantMaxInFlight,
  backlogLimit: config.backlogLimit,
  perSecond: config.perSecond,
});

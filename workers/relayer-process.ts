import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { createActivities, type ActivityDependencies } from '../activities';
import { systemClock } from '../activities/dependencies';
import { plannedFailpoints, type Failpoints } from '../activities/failpoints';
import { buildApi } from '../api/server';
import type { ChainRegistry } from '../chain/chain';
import { createChainRegistry, createEvmChain } from '../chain/evm-chain';
import { startBatchWorkflow } from '../client/batch-workflows';
import { intentWorkflow, startIntentWorkflow } from '../client/intent-workflows';
import {
  ensureFinalitySweepSchedule,
  ensureOrphanSweepSchedule,
  ensureTopUpSweepSchedule,
} from '../client/sweep-schedules';
import { startWebhookDispatch } from './webhook-dispatch';
import { permitReleaseTaskQueue } from '../domain/task-queues';
import { openDatabase, type Database } from '../store/database';
import { registerWallet } from '../store/wallet-nonces';
import { serverPacedPermits } from '../throttle/server-paced-permits';
import { evmChainsSettings } from './chain-settings';
import type { RelayerConfig } from './config/load';
import type { Role } from './config/role';
import { ensureSearchAttributes } from './ensure-search-attributes';
import { watchHeapAfterFullGc } from './heap-after-gc';
import { startMetricsServer } from './metrics-server';
import { startQuotaThrottle } from './quota-throttle';
import { createRelayerWorker, type RelayerWorker } from './relayer-worker';
import { startRpcBudgets } from './rpc-budgets';
import { chainReadSharing } from './chain-read-sharing';
import { watchWallets } from './wallet-watch';
import { checkSigners, signerFactory, walletSigners, type SignerFactory } from './wallet-signers';
import { walletDiscovery } from './wallet-discovery';
import type { WalletSigner } from '../chain/signers/wallet-signer';
import { rpcResponseCounter } from './rpc-metrics';
import { RunStats } from './run-stats';
import { reorgsBeforeFinality, timeToFinality } from './finality-metrics';
import { admissionLimits, intentTimings, webhookSettings } from './process-settings';

export interface RelayerProcess {
  readonly processId: string;
  readonly database: Database;
  readonly metrics: Registry;
  /** The Temporal workers, when this process runs the worker role. */
  readonly worker?: RelayerWorker;
  /** The HTTP API's URL, when this process runs the api role. */
  readonly apiUrl?: string;
  /** Settles when the process's work stops (the workers end, or `stop` is called). */
  readonly done: Promise<void>;
  /** Stops taking work, drains the workers (see RelayerWorker.shutdown), closes connections. */
  stop(): Promise<void>;
}

const newProcessId = (): string => `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

/**
 * One relayer process from its configuration: the Temporal workers (`worker`), the HTTP API
 * (`api`), or both in one process (what `npm start` runs). Either role scales on its own: run as
 * many of each as you like against one Temporal namespace and one database.
 */
export async function startRelayerProcess(
  config: RelayerConfig,
  roles: readonly Role[] = ['worker'],
): Promise<RelayerProcess> {
  const processId = newProcessId();
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const stopHeapWatch = watchHeapAfterFullGc(metrics);
  const database = await openDatabase(config.databaseUrl, { homeChainId: config.chainId });
  const redis =
    config.redisUrl === undefined
      ? undefined
      : new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
  // Failed commands reach the caller as an error; the client itself keeps reconnecting.
  redis?.on('error', (error: Error) => console.error(`redis: ${error.message}`));
  const budgets = startRpcBudgets(config, metrics, redis);
  const failpoints =
    config.crashAt || config.panicAt
      ? plannedFailpoints({ crash: config.crashAt, panic: config.panicAt })
      : undefined;
  const sharing = redis && chainReadSharing(redis, config, processId, failpoints);
  const signerFor = signerFactory(config);
  const signers = walletSigners(config, signerFor);
  const chains = createChainRegistry(
    evmChainsSettings(config, rpcResponseCounter(metrics), budgets, signers, sharing).map(
      createEvmChain,
    ),
  );
  // One native connection per process, shared by the workers and the client.
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const client = new Client({ connection, namespace: config.temporalNamespace });
  const shared = {
    config,
    processId,
    failpoints,
    metrics,
    database,
    chains,
    signers,
    signerFor,
    client,
    connection,
  };
  const worker = roles.includes('worker') ? await startWorkerRole(shared) : undefined;
  const api = roles.includes('api')
    ? await startApiRole(shared, { eagerStart: worker !== undefined })
    : undefined;
  let stopped: () => void = () => undefined;
  const done = worker
    ? worker.run.done
    : new Promise<void>((resolve) => {
        stopped = resolve;
      });
  return {
    processId,
    database,
    metrics,
    worker: worker?.worker,
    apiUrl: api?.url,
    done,
    async stop() {
      api?.startClosing();
      await worker?.stop();
      stopped();
      await done;
      await api?.close();
      await sharing?.release();
      await budgets.close();
      redis?.disconnect();
      await connection.close();
      await database.close();
      stopHeapWatch();
    },
  };
}

interface SharedParts {
  config: RelayerConfig;
  processId: string;
  failpoints?: Failpoints;
  metrics: Registry;
  database: Database;
  chains: ChainRegistry;
  signers: readonly WalletSigner[];
  signerFor: SignerFactory;
  client: Client;
  connection: NativeConnection;
}

/** The workers: the pool, the throttle, the permit releases; the quota; the orphan sweep. */
async function startWorkerRole({
  config,
  processId,
  metrics,
  database,
  chains,
  signers,
  signerFor,
  client,
  connection,
  failpoints,
}: SharedParts) {
  await checkSigners(signers);
  for (const chainId of chains.chainIds) {
    const chain = chains.get(chainId);
    // Catches the wallet up with the chain (used elsewhere while we were down) before any send.
    for (const address of chain.walletAddresses) {
      await registerWallet(database, { chainId, address }, await chain.pendingNonce(address));
    }
    const treasury = chain.treasury?.address;
    if (treasury) {
      const pending = await chain.pendingNonce(treasury);
      await registerWallet(database, { chainId, address: treasury }, pending, 'treasury');
    }
  }
  // The wallets added at run time are taken on before any work, then looked for with the balances.
  const discovery = walletDiscovery({ database, chains, signerFor });
  await discovery.look();
  const serverQuota = config.quotaMode === 'task-queue';
  const throttle = serverQuota ? undefined : await startQuotaThrottle(config);
  const stats = new RunStats(metrics);
  if (throttle) stats.watchPermits(throttle);
  await ensureSearchAttributes(connection, config.temporalNamespace);
  const timings = intentTimings(config);
  const deps: ActivityDependencies = {
    db: database,
    chains,
    throttle: throttle ?? serverPacedPermits,
    clock: systemClock,
    permitReleaseQueue: permitReleaseTaskQueue(config.taskQueue, processId),
    admission: admissionLimits(config),
    gasPaidBy: config.gasPaidBy,
    webhooks: webhookSettings(config),
    workflows: {
      startIntent: async (intent) => {
        await startIntentWorkflow(client, config.taskQueue, intent, { timings });
      },
      startBatch: (batch) => startBatchWorkflow(client, config.taskQueue, batch, timings),
      tellWalletTurn: (intentId, turn) => intentWorkflow(client, intentId).tellWalletTurn(turn),
    },
    onFinalized: timeToFinality(metrics),
    onReorgedBeforeFinality: reorgsBeforeFinality(metrics),
    failpoints,
  };
  const worker = await createRelayerWorker({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    processId,
    activities: createActivities(deps),
    poolWidth: config.poolWidth,
    throttleWaiters: Math.max(100, Math.ceil((config.perSecond * config.maxWaitMs) / 1000)),
    drainTimeoutMs: config.drainTimeoutMs,
    stats,
    ...(serverQuota && { serverQuotaPerSecond: config.perSecond }),
    maxCachedWorkflows: config.maxCachedWorkflows,
    failpoints,
    // A process that cannot sign webhooks (no WEBHOOK_SECRETS_KEY) neither sweeps nor delivers.
    ...(config.webhookSecretsKey && { webhookSlots: config.webhookPoolWidth }),
  });
  const webhookDispatch =
    config.webhookSecretsKey &&
    startWebhookDispatch({
      database,
      client,
      taskQueue: config.taskQueue,
      everyMs: config.webhookDispatchMs,
      delivery: {
        retry: { initialMs: config.webhookRetryInitialMs, forHours: config.webhookRetryHours },
        concurrency: config.webhookConcurrency,
        attemptTimeoutMs: config.webhookTimeoutMs,
      },
    });
  if (config.orphanSweepMs > 0) {
    await ensureOrphanSweepSchedule(client, {
      taskQueue: config.taskQueue,
      everyMs: config.orphanSweepMs,
    });
  }
  if (config.finalitySweepMs > 0) {
    await ensureFinalitySweepSchedule(client, {
      taskQueue: config.taskQueue,
      everyMs: config.finalitySweepMs,
    });
  }
  if (config.topUpSweepMs > 0) {
    for (const chainId of chains.chainIds.filter((id) => chains.get(id).treasury)) {
      await ensureTopUpSweepSchedule(client, {
        taskQueue: config.taskQueue,
        everyMs: config.topUpSweepMs,
        chainId,
      });
    }
  }
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(metrics, config.metricsPort);
  const walletWatch =
    config.walletWatchMs > 0
      ? watchWallets({
          chains,
          metrics,
          lowBalanceWei: config.lowBalance,
          everyMs: config.walletWatchMs,
          beforeEachLook: discovery.look,
        })
      : undefined;
  const run = { done: worker.run() };
  return {
    worker,
    run,
    async stop() {
      walletWatch?.stop();
      if (webhookDispatch) await webhookDispatch.stop();
      await worker.shutdown();
      await run.done;
      await metricsServer?.close();
      await throttle?.close();
    },
  };
}

/** The HTTP API, on the process's database, chains (for review checks), client and metrics. */
async function startApiRole(
  { config, metrics, database, chains, client }: SharedParts,
  { eagerStart }: { eagerStart: boolean },
) {
  const api = await buildApi({
    eagerStart,
    database,
    client,
    chains,
    taskQueue: config.taskQueue,
    admission: admissionLimits(config),
    registry: metrics,
    lowBalanceWei: config.lowBalance,
    webhooks: webhookSettings(config),
    timings: intentTimings(config),
  });
  // No port given (tests, in one process with the workers): any free one.
  const url = await api.app.listen({ port: config.apiPort ?? 0, host: config.apiHost });
  return {
    url,
    startClosing: api.startClosing,
    close: () => api.app.close(),
  };
}

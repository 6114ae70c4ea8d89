import { Client } from '@temporalio/client';
import { connectTemporal } from './temporal-connection';
import { redisClient } from '../throttle/redis-client';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { plannedFailpoints } from '../activities/failpoints';
import { createChainRegistry, createEvmChain } from '../chain/evm-chain';
import { openDatabase, type Database } from '../store/database';
import { evmChainsSettings } from './chain-settings';
import type { RelayerConfig } from './config/load';
import type { Role } from './config/role';
import { watchHeapAfterFullGc } from './heap-after-gc';
import type { RelayerWorker } from './relayer-worker';
import { startRpcBudgets } from './rpc-budgets';
import { chainReadSharing } from './chain-read-sharing';
import { signerFactory, walletSigners } from './wallet-signers';
import { rpcResponseCounter } from './rpc-metrics';
import { log } from '../domain/log';
import type { SharedParts } from './process-parts';
import type { Tracing } from './tracing';

export interface RelayerProcess {
  readonly processId: string;
  readonly database: Database;
  readonly metrics: Registry;
  /** The Temporal workers, when this process runs the worker role. */
  readonly worker?: RelayerWorker;
  /** Where its workers' build stands in their Worker Deployment, when it runs the worker role. */
  readonly release?: string;
  /** The HTTP API's URL, when this process runs the api role. */
  readonly apiUrl?: string;
  /** What each RPC endpoint's budget did so far, a line each (a worker's stop line tells them). */
  rpcBudgetTallies(): string[];
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
  // First: what the process loads next (its HTTP server, its clients) is then instrumented.
  // OpenTelemetry and each role's code (the API's HTTP server, the worker's activities) are
  // loaded only where used: a process's start is mostly loading modules.
  const tracing =
    config.otlpEndpoint === undefined
      ? undefined
      : (await import('./tracing')).startTracing({
          endpoint: config.otlpEndpoint,
          serviceName: config.serviceName,
          processId,
          roles,
        });
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const stopHeapWatch = watchHeapAfterFullGc(metrics);
  const { shared, budgets, sharing } = await openSharedParts(config, processId, metrics, tracing);
  const { database, connection, redis } = shared;
  const worker = roles.includes('worker')
    ? await (await import('./worker-role')).startWorkerRole(shared)
    : undefined;
  const api = roles.includes('api')
    ? await (await import('./api-role')).startApiRole(shared, { eagerStart: worker !== undefined })
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
    ...(worker && { release: worker.release }),
    apiUrl: api?.url,
    rpcBudgetTallies: () => budgets.tallies(),
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
      await tracing?.shutdown();
    },
  };
}

/** Temporal, the database, Redis, the RPC budgets, the signers and the chains, opened once. */
async function openSharedParts(
  config: RelayerConfig,
  processId: string,
  metrics: Registry,
  tracing: Tracing | undefined,
) {
  // Temporal first: a process that cannot reach it exits before migrating a shared database that
  // the fleet still running (older, refusing a newer schema) would then not restart on.
  const connection = await connectTemporal(config.temporal);
  const database = await openDatabase(config.databaseUrl, { homeChainId: config.chainId });
  const redis =
    config.redisUrl === undefined
      ? undefined
      : redisClient({ url: config.redisUrl, ca: config.redisTlsCa });
  // Failed commands reach the caller as an error; the client itself keeps reconnecting.
  redis?.on('error', (error: Error) => log.error(`redis: ${error.message}`));
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
      (settings) => createEvmChain({ ...settings, ...(tracing && { traced: true }) }),
    ),
  );
  const client = new Client({
    connection,
    namespace: config.temporal.namespace,
    ...(tracing && { interceptors: tracing.clientInterceptors }),
  });
  const shared: SharedParts = {
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
    redis,
    tracing,
  };
  return { shared, budgets, sharing };
}

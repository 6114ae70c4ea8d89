import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createActivities } from '../activities';
import type { ChainRegistry } from '../activities/chain/chain';
import { createChainRegistry, createEvmChain } from '../activities/chain/evm-chain';
import { systemClock } from '../activities/dependencies';
import { openDatabase, type Database } from '../activities/store/database';
import { registerWallet } from '../activities/store/wallet-nonces';
import { Throttle } from '../activities/throttle/throttle';
import { permitReleaseTaskQueue } from '../domain/task-queues';
import type { RelayerConfig } from './config';
import { ensureSearchAttributes } from './ensure-search-attributes';
import { createRelayerWorker, type RelayerWorker } from './relayer-worker';

export interface RelayerProcess {
  readonly processId: string;
  readonly database: Database;
  readonly chains: ChainRegistry;
  readonly throttle: Throttle;
  readonly worker: RelayerWorker;
  /** Settles when the worker stops; rejects if it fails. */
  readonly done: Promise<void>;
  /** Drains the worker (see RelayerWorker.shutdown), then closes connections. */
  stop(): Promise<void>;
}

export const newProcessId = (): string =>
  `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

/** Everything one worker process runs, built from its configuration. */
export async function startRelayerProcess(
  config: RelayerConfig,
  options: { maxCachedWorkflows?: number } = {},
): Promise<RelayerProcess> {
  const processId = newProcessId();
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
  const throttle = new Throttle(config);
  const clientConnection = await Connection.connect({ address: config.temporalAddress });
  await ensureSearchAttributes(clientConnection, config.temporalNamespace);
  await clientConnection.close();
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
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
    maxCachedWorkflows: options.maxCachedWorkflows,
  });
  const done = worker.run();
  return {
    processId,
    database,
    chains,
    throttle,
    worker,
    done,
    async stop() {
      await worker.shutdown();
      await done;
      await throttle.close();
      await connection.close();
      await database.close();
    },
  };
}

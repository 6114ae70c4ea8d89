import { createActivities, type ActivityDependencies } from '../activities';
import { systemClock } from '../activities/dependencies';
import { intentWorkflow } from '../client/intent-workflows';
import { ensureSweepSchedule, sweepSchedules } from '../client/sweep-schedules';
import { startWebhookDispatch, type WebhookDispatch } from './webhook-dispatch';
import { countDeliveryRunsOnWebhookQueue } from '../client/webhook-workflows';
import { allowUpgrade } from '../client/worker-versions';
import { permitReleaseTaskQueue } from '../domain/task-queues';
import { registerWallet } from '../store/wallet-nonces';
import { serverPacedPermits } from '../throttle/server-paced-permits';
import { ensureSearchAttributes } from './ensure-search-attributes';
import { startMetricsServer } from './metrics-server';
import { startQuotaThrottle } from './quota-throttle';
import { createRelayerWorker } from './relayer-worker';
import { rollOutAtStart } from './worker-deployment';
import { watchWallets } from './wallet-watch';
import { followBlocks } from './block-follower';
import { followAlone, followerLease } from './follower-lease';
import { checkSigners } from './wallet-signers';
import { walletDiscovery } from './wallet-discovery';
import { RunStats } from './run-stats';
import { watchPauses } from '../operations/pause-watch';
import { startBatchOf, startIntentOf } from '../service/workflow-starts';
import { reorgsBeforeFinality, timeToFinality } from './finality-metrics';
import { admissionLimits, intentTimings, webhookSettings } from './process-settings';
import type { SharedParts } from './process-parts';

/** How long a dead process keeps following a chain's blocks for the fleet (Redis shared). */
const followerLeaseMs = 5000;

/** The workers: the pool, the throttle, the permit releases; the quota; the orphan sweep. */
export async function startWorkerRole(parts: SharedParts) {
  const { config, processId, metrics, database, chains, signers, signerFor, client } = parts;
  await checkSigners(signers);
  await catchUpWallets(database, chains);
  // The wallets added at run time are taken on before any work, then looked for with the balances.
  const discovery = walletDiscovery({ database, chains, signerFor });
  await discovery.look();
  const serverQuota = config.quotaMode === 'task-queue';
  const throttle = serverQuota ? undefined : await startQuotaThrottle(config);
  const stats = new RunStats(metrics);
  if (throttle) stats.watchPermits(throttle);
  await ensureSearchAttributes(parts.connection, config.temporal.namespace);
  const pauses = watchPauses(database);
  await pauses.refresh();
  const deps = activityDependencies(parts, throttle ?? serverPacedPermits, pauses);
  const worker = await createRelayerWorker({
    ...poolOptions(parts, stats),
    activities: createActivities(deps),
    // Steps store the events: the outbox's sweep follows them rather than polling an idle fleet.
    ...(config.webhookSecretsKey && { onStepEnded: () => webhookDispatch?.nudge() }),
  });
  const webhookDispatch = startWebhooksWhereSigned(parts);
  const sweeps = sweepSchedules({
    ...config,
    treasuryChains: chains.chainIds.filter((id) => chains.get(id).treasury),
    depositChains: chains.chainIds.filter((id) => chains.get(id).depositFactory),
  });
  for (const sweep of sweeps) await ensureSweepSchedule(client, config.taskQueue, sweep);
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
  const follower = followBlocks({
    database,
    chains,
    metrics,
    lease: parts.redis ? followerLease(parts.redis, processId, followerLeaseMs) : followAlone,
    wake: (intentId) => intentWorkflow(client, intentId).tellTransactionSeen(),
  });
  const run = { done: worker.run() };
  // Polling registers the version; only then can it become current.
  const release = worker.version
    ? await rollOutAtStart(client, worker.version, config.taskQueue, config.workerRollout).catch(
        async (error) => {
          await worker.shutdown();
          throw error;
        },
      )
    : 'unversioned';
  return {
    worker,
    run,
    /** Where this build stands in its deployment, for the start line. */
    release,
    async stop() {
      walletWatch?.stop();
      await follower.stop();
      pauses.stop();
      if (webhookDispatch) await webhookDispatch.stop();
      await worker.shutdown();
      await run.done;
      await metricsServer?.close();
      await throttle?.close();
    },
  };
}

/** Catches each wallet up with the chain (used elsewhere while we were down) before any send. */
async function catchUpWallets(database: SharedParts['database'], chains: SharedParts['chains']) {
  for (const chainId of chains.chainIds) {
    const chain = chains.get(chainId);
    for (const address of chain.walletAddresses) {
      await registerWallet(database, { chainId, address }, await chain.pendingNonce(address));
    }
    const treasury = chain.treasury?.address;
    if (treasury) {
      const pending = await chain.pendingNonce(treasury);
      await registerWallet(database, { chainId, address: treasury }, pending, 'treasury');
    }
  }
}

/** What the steps of this process are handed: its parts, its settings, its Temporal client. */
function activityDependencies(
  { config, processId, metrics, database, chains, client, failpoints }: SharedParts,
  throttle: ActivityDependencies['throttle'],
  pauses: ActivityDependencies['pauses'],
): ActivityDependencies {
  const starts = { database, client, taskQueue: config.taskQueue, timings: intentTimings(config) };
  return {
    db: database,
    chains,
    throttle,
    clock: systemClock,
    permitReleaseQueue: permitReleaseTaskQueue(config.taskQueue, processId),
    admission: admissionLimits(config),
    gasPaidBy: config.gasPaidBy,
    dustMarks: { nativeWei: config.depositDustEth, tokens: config.depositDustTokens },
    webhooks: webhookSettings(config),
    workflows: {
      startIntent: async (intent) => {
        await startIntentOf(starts, intent);
      },
      startBatch: (batch) => startBatchOf(starts, batch),
      tellWalletTurn: (intentId, turn) => intentWorkflow(client, intentId).tellWalletTurn(turn),
    },
    onFinalized: timeToFinality(metrics),
    onReorgedBeforeFinality: reorgsBeforeFinality(metrics),
    ...(config.workerVersioning && {
      workflowVersions: { allowUpgrade: (execution) => allowUpgrade(client, execution) },
    }),
    pauses,
    failpoints,
  };
}

/** The pool's settings: its width, its drain, its webhook slots, its deployment. */
function poolOptions(
  { config, processId, client, connection, failpoints, tracing }: SharedParts,
  stats: RunStats,
) {
  const serverQuota = config.quotaMode === 'task-queue';
  return {
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.taskQueue,
    processId,
    poolWidth: config.poolWidth,
    throttleWaiters: Math.max(100, Math.ceil((config.perSecond * config.maxWaitMs) / 1000)),
    drainTimeoutMs: config.drainTimeoutMs,
    stats,
    ...(serverQuota && { serverQuotaPerSecond: config.perSecond }),
    maxCachedWorkflows: config.maxCachedWorkflows,
    failpoints,
    // A process that cannot sign webhooks (no WEBHOOK_SECRETS_KEY) neither sweeps nor delivers.
    ...(config.webhookSecretsKey && {
      webhookSlots: config.webhookPoolWidth,
      countEarlierWebhookRuns: () => countDeliveryRunsOnWebhookQueue(client, config.taskQueue),
    }),
    ...(tracing && { tracing }),
    ...(config.workerVersioning && {
      deployment: {
        name: config.workerDeploymentName ?? deploymentNameOf(config.taskQueue),
        ...(config.workerBuildId && { buildId: config.workerBuildId }),
      },
    }),
  };
}

/** The outbox's dispatch, in a process that can sign webhooks (WEBHOOK_SECRETS_KEY). */
function startWebhooksWhereSigned({
  config,
  database,
  client,
}: SharedParts): WebhookDispatch | undefined {
  if (config.webhookSecretsKey === undefined) return undefined;
  return startWebhookDispatch({
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
}

/** A task queue's name as a deployment's ("." and ":" separate a version's parts). */
const deploymentNameOf = (taskQueue: string): string => taskQueue.replace(/[.:]/g, '-');

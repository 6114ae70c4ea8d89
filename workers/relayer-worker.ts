import {
  type ActivityInterceptorsFactory,
  type NativeConnection,
  type WorkerOptions,
  Runtime,
  Worker,
} from '@temporalio/worker';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { RelayerActivities } from '../activities';
import { permitReleaseTaskQueue, throttleTaskQueue, webhookTaskQueue } from '../domain/task-queues';
import { Registry } from 'prom-client';
import type { Failpoints } from '../activities/failpoints';
import { failpointsAtActivityEnd } from './failpoint-interceptor';
import { ExpectedConditions } from './expected-conditions';
import { RunStats } from './run-stats';
import { typedFailures } from './typed-failures';
import type { Tracing } from './tracing';
import { workflowCode } from './workflow-code';
import { serveEarlierWebhookRuns, type EarlierWebhookRuns } from './earlier-webhook-runs';

export interface RelayerWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** Identifies this process's permit-release queue. */
  processId: string;
  activities: RelayerActivities;
  /** Slots for the working steps, activities and local activities alike: the pool. */
  poolWidth: number;
  /** Concurrent permit waits this process serves; waiting costs only a promise each. */
  throttleWaiters: number;
  drainTimeoutMs: number;
  /** Permits per second the server hands out on the throttle queue (QUOTA_MODE=task-queue). */
  serverQuotaPerSecond?: number;
  maxCachedWorkflows?: number;
  /** Crash points at each activity's end (CRASH_AT). */
  failpoints?: Failpoints;
  /** Where activity outcomes are counted; a private one when omitted. */
  stats?: RunStats;
  /** Delivery slots on the webhooks queue (none: this process delivers no webhooks). */
  webhookSlots?: number;
  /**
   * Delivery runs on the webhooks queue, started there by the previous release: while there are
   * any, this process (if it delivers) serves their workflow tasks too.
   */
  countEarlierWebhookRuns?: () => Promise<number>;
  /** Told whenever a step (an activity of the main queue's pool) ends, however it ended. */
  onStepEnded?: () => void;
  /** Spans for workflows and steps (OTEL_EXPORTER_OTLP_ENDPOINT); none: not a line of it runs. */
  tracing?: Pick<Tracing, 'activityInterceptors' | 'sinks'>;
  /**
   * The Worker Deployment the main queue's workers poll as a version of (its build id by default
   * the workflow bundle's digest); none: unversioned. The per-process and per-fleet queues
   * (permits, releases, webhook pumps) stay outside it: they run activities only, for any build's
   * runs.
   */
  deployment?: { name: string; buildId?: string };
}

export interface RelayerWorker {
  readonly stats: RunStats;
  /** The version the main queue's workers poll as, when versioned. */
  readonly version?: WorkerDeploymentVersion;
  /** Resolves when every part has stopped. */
  run(): Promise<void>;
  /**
   * Stops in the order that keeps money safe: no new permits, then the pool drains (in-flight
   * steps get drainTimeoutMs before they are cancelled), then the permit releases stop.
   */
  shutdown(): Promise<void>;
}

export async function createRelayerWorker(options: RelayerWorkerOptions): Promise<RelayerWorker> {
  const stats = options.stats ?? new RunStats(new Registry());
  const expected = new ExpectedConditions();
  const { workflowBundle, digest } = await workflowCode(options.tracing !== undefined);
  const { deployment } = options;
  const version: WorkerDeploymentVersion | undefined = deployment && {
    deploymentName: deployment.name,
    buildId: deployment.buildId ?? digest,
  };
  const interceptors = activityInterceptors(options, stats, expected);
  const workflowParts = {
    workflowBundle,
    ...(options.tracing && { sinks: options.tracing.sinks }),
  };
  const [pool, [throttle, releases, webhooks]] = await Promise.all([
    createPool(options, interceptors, workflowParts, version),
    createQueueWorkers(options, interceptors),
  ]);
  const earlierRuns = webhooks && earlierWebhookRuns(options, interceptors, workflowParts);
  let runs:
    | { pool: Promise<void>; all: Promise<void>; earlier: Promise<EarlierWebhookRuns> | undefined }
    | undefined;
  const start = () => {
    const poolRun = pool.run();
    const earlier = earlierRuns && serveEarlierWebhookRuns(earlierRuns);
    return {
      pool: poolRun,
      earlier,
      all: Promise.all([poolRun, throttle.run(), releases.run(), webhooks?.run(), earlier]).then(
        () => undefined,
      ),
    };
  };
  return {
    stats,
    ...(version && { version }),
    run() {
      runs ??= start();
      return runs.all;
    },
    async shutdown() {
      if (!runs) return;
      stop(throttle);
      stop(pool);
      if (webhooks) stop(webhooks);
      await (await runs.earlier)?.stop();
      await runs.pool;
      stop(releases);
      await runs.all;
      expected.stop();
    },
  };
}

type Interceptors = { activity: ActivityInterceptorsFactory[] };
type WorkflowParts = Pick<WorkerOptions, 'workflowBundle' | 'sinks'>;

/**
 * Outermost first: a step's span holds all of it; stats (inside typedFailures) sees the
 * activity's own error, before it becomes a failure, and a panic planned at an activity's end
 * (innermost) as a bug in the activity.
 */
function activityInterceptors(
  options: RelayerWorkerOptions,
  stats: RunStats,
  expected: ExpectedConditions,
): Interceptors {
  return {
    activity: [
      ...(options.tracing ? [options.tracing.activityInterceptors] : []),
      typedFailures(expected),
      stats.interceptor,
      ...(options.failpoints ? [failpointsAtActivityEnd(options.failpoints)] : []),
    ],
  };
}

/**
 * The main queue: every workflow and every step. A waiting permit and a release for another
 * process's workflow run on queues of their own; releaseThrottle is also a step here (a local
 * activity returns a permit this process holds).
 */
function createPool(
  options: RelayerWorkerOptions,
  interceptors: Interceptors,
  workflowParts: WorkflowParts,
  version: WorkerDeploymentVersion | undefined,
): Promise<Worker> {
  const { acquireThrottle, pumpWebhooks, ...steps } = options.activities;
  void [acquireThrottle, pumpWebhooks];
  // Only the pool's activities are steps (they store the events); a permit wait, a release for
  // another process or a webhook pump ending tells nothing new.
  const { onStepEnded } = options;
  return Worker.create({
    interceptors: onStepEnded
      ? { activity: [...interceptors.activity, stepEnds(onStepEnded)] }
      : interceptors,
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...workflowParts,
    // A run takes its build's default unless its workflow type names one (workflows/versioning.ts).
    ...(version && {
      workerDeploymentOptions: {
        version,
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'PINNED' as const,
      },
    }),
    activities: steps,
    maxConcurrentActivityTaskExecutions: options.poolWidth,
    maxConcurrentLocalActivityExecutions: options.poolWidth,
    ...(options.maxCachedWorkflows !== undefined && {
      maxCachedWorkflows: options.maxCachedWorkflows,
    }),
    shutdownGraceTime: options.drainTimeoutMs,
  });
}

/** The queues that run one activity each: permit waits, permit releases, webhook pumps. */
function createQueueWorkers(options: RelayerWorkerOptions, interceptors: Interceptors) {
  const { connection, namespace, taskQueue, activities } = options;
  return Promise.all([
    Worker.create({
      interceptors,
      connection,
      namespace,
      taskQueue: throttleTaskQueue(taskQueue),
      activities: { acquireThrottle: activities.acquireThrottle },
      maxConcurrentActivityTaskExecutions: options.throttleWaiters,
      ...(options.serverQuotaPerSecond !== undefined && {
        maxTaskQueueActivitiesPerSecond: options.serverQuotaPerSecond,
      }),
      shutdownGraceTime: 0,
    }),
    Worker.create({
      interceptors,
      connection,
      namespace,
      taskQueue: permitReleaseTaskQueue(taskQueue, options.processId),
      activities: { releaseThrottle: activities.releaseThrottle },
      maxConcurrentActivityTaskExecutions: 100,
      shutdownGraceTime: options.drainTimeoutMs,
    }),
    // Only the pump's slots: the delivery workflows run on the main queue, on the pool's threads.
    options.webhookSlots === undefined
      ? undefined
      : Worker.create({
          interceptors,
          connection,
          namespace,
          taskQueue: webhookTaskQueue(taskQueue),
          activities: { pumpWebhooks: activities.pumpWebhooks },
          maxConcurrentActivityTaskExecutions: options.webhookSlots,
          shutdownGraceTime: options.drainTimeoutMs,
        }),
  ]);
}

/** Delivery runs a previous release started on the webhooks queue, served while any remain. */
function earlierWebhookRuns(
  options: RelayerWorkerOptions,
  interceptors: Interceptors,
  workflowParts: WorkflowParts,
) {
  const { countEarlierWebhookRuns } = options;
  if (!countEarlierWebhookRuns) return undefined;
  return {
    countRunning: countEarlierWebhookRuns,
    createWorker: () =>
      Worker.create({
        interceptors,
        connection: options.connection,
        namespace: options.namespace,
        taskQueue: webhookTaskQueue(options.taskQueue),
        ...workflowParts,
        shutdownGraceTime: options.drainTimeoutMs,
      }),
    onWorkerFailed: (error: unknown) =>
      Runtime.instance().logger.error('The worker of earlier webhook runs failed', { error }),
  };
}

const stepEnds =
  (onEnded: () => void): ActivityInterceptorsFactory =>
  () => ({
    inbound: {
      async execute(input, next) {
        try {
          return await next(input);
        } finally {
          onEnded();
        }
      },
    },
  });

function stop(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}

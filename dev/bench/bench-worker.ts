import type { LocalWorld } from '../../test/harness/stack/local-world';
import { spawnWorker, type WorkerProcess } from '../../test/harness/stack/worker-process';

/**
 * The bench's worker process for `openIntents` intents at once: pool 32, 64 permits at
 * `perSecond`, and every tenant (and the backlog) allowed that many open, so only the quota and
 * the machine shape a cell.
 */
export async function spawnBenchWorker(
  world: LocalWorld,
  options: {
    taskQueue: string;
    bundlePath: string;
    perSecond: number;
    openIntents: number;
    /** Settings of the cell's own (e.g. THROTTLE_LINE_ORDER). */
    env?: Record<string, string>;
  },
): Promise<WorkerProcess> {
  const { taskQueue, bundlePath, perSecond, openIntents } = options;
  await world.database.kysely.updateTable('tenants').set({ max_in_flight: openIntents }).execute();
  return spawnWorker(
    world.env({
      TASK_QUEUE: taskQueue,
      WORKFLOW_BUNDLE_PATH: bundlePath,
      POOL_WIDTH: '32',
      THROTTLE_MAX_IN_FLIGHT: '64',
      THROTTLE_PER_SECOND: String(perSecond),
      THROTTLE_BURST: String(perSecond),
      TENANT_MAX_IN_FLIGHT: String(openIntents),
      BACKLOG_LIMIT: String(openIntents),
      ...options.env,
    }),
  );
}

import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { pinnedRunsQuery } from '../../client/worker-versions';
import type { WorkerProcess } from '../../test/harness/stack/worker-process';
import type { Cluster } from './cluster';

/** Runs the Temporal CLI with the cluster's TEMPORAL_* settings (its certificates under --tls). */
export type TemporalCli = (args: string[]) => string;

export function temporalCli(executable: string, cluster: Pick<Cluster, 'temporalEnv'>) {
  return (args: string[]): string => {
    const run = spawnSync(executable, args, {
      encoding: 'utf8',
      env: { ...process.env, ...cluster.temporalEnv },
    });
    if (run.status !== 0) {
      throw new Error(`temporal ${args.join(' ')}: ${(run.stderr || run.stdout).trim()}`);
    }
    return run.stdout;
  };
}

/** The Worker Deployment version a worker's start line names. */
export function versionOf(worker: WorkerProcess): { deploymentName: string; buildId: string } {
  const named = /deployment (\S+) build (\S+) \(/.exec(worker.output());
  if (!named) throw new Error('a worker did not name its Worker Deployment version at start');
  return { deploymentName: named[1]!, buildId: named[2]! };
}

const drainDeadlineMs = 10 * 60_000;

/**
 * A release as docs/operations.md's "Release a new build" does it: every worker but the last
 * replaced by one of the new build (SIGTERM, drain, start), the new build made current, and the
 * old build's last worker retired only once no pinned run remains on it.
 */
export async function versionedRollingUpgrade(
  cluster: Cluster,
  temporal: TemporalCli,
  /** Stops worker `index` (SIGTERM, drain) and starts it again on the new build. */
  replace: (index: number) => Promise<WorkerProcess>,
): Promise<string> {
  const count = cluster.workers.length;
  if (count < 2) throw new Error('a versioned rolling upgrade needs two workers or more');
  const old = versionOf(cluster.workers[0]!);
  let next = old;
  for (let index = 0; index < count - 1; index++) next = versionOf(await replace(index));
  if (next.buildId === old.buildId) throw new Error(`the new code is build ${old.buildId} too`);
  const { deploymentName } = next;
  temporal([
    ...['worker', 'deployment', 'set-current-version', '--yes'],
    ...['--deployment-name', deploymentName, '--build-id', next.buildId],
  ]);
  const pinnedOnOld = () => {
    const query = pinnedRunsQuery(old);
    const answer = JSON.parse(temporal(['workflow', 'count', '--query', query, '-o', 'json']));
    return Number((answer as { count?: string | number }).count ?? 0);
  };
  const atSwitch = pinnedOnOld();
  const since = Date.now();
  while (pinnedOnOld() > 0) {
    if (Date.now() - since > drainDeadlineMs) {
      throw new Error(
        `build ${old.buildId} still has pinned runs after ${drainDeadlineMs / 60_000} min`,
      );
    }
    await sleep(2000);
  }
  const drainedAfterS = ((Date.now() - since) / 1000).toFixed(1);
  await replace(count - 1);
  return (
    `build ${old.buildId} → ${next.buildId} of deployment ${deploymentName}: ${count - 1} of ${count} workers replaced by the new build (SIGTERM, drain, start), ` +
    `made current (temporal worker deployment set-current-version); ${atSwitch} runs pinned to ${old.buildId} then, none ${drainedAfterS} s later, when its last worker was retired`
  );
}

/** How many task queues the version holds (a version holds at most 100). */
export function taskQueuesOfVersion(
  temporal: TemporalCli,
  version: { deploymentName: string; buildId: string },
): { count: number; names: string[] } {
  const described = JSON.parse(
    temporal([
      ...['worker', 'deployment', 'describe-version', '-o', 'json'],
      ...['--deployment-name', version.deploymentName, '--build-id', version.buildId],
    ]),
  ) as { taskQueuesInfos?: { name: string; type: string }[] };
  const infos = described.taskQueuesInfos ?? [];
  return {
    count: infos.length,
    names: [...new Set(infos.map((info) => `${info.name} (${info.type})`))],
  };
}

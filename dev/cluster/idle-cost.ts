import { setTimeout as sleep } from 'node:timers/promises';
import { treeCpuMs } from '../../test/harness/process-usage';
import { countsBetween, sdkTaskCounts } from '../bench/sdk-task-counts';
import type { ClusterProcess } from './cluster';

/** What the fleet costs with no intents to run: CPU per process and RPC units a second. */
export interface IdleCost {
  seconds: number;
  /** Share of one core, per process (with its children, e.g. PostgreSQL's backends). */
  processes: {
    name: string;
    pid: number;
    coreShare: number;
    /** What a relayer process ran meanwhile: Temporal tasks by type, cache misses (sdk-task-counts). */
    tasks?: Record<string, number>;
  }[];
  rpcUnitsPerSecond: number;
  rpcCallsPerSecondByMethod: Record<string, number>;
  /**
   * Confirmed intents marked final during the window: work the intents left (the finality
   * sweep reads each one's receipt once its block is final, a minute and more after it
   * confirmed), not the fleet's idle cost — its CPU and reads are in the figures above.
   */
  finalizedInWindow: number;
}

/**
 * Measures the fleet for `ms` while nothing is submitted: every intent has ended (one may wait in
 * review, as in production). `callsSoFar` is, per endpoint, every RPC call it has seen so far:
 * each list only grows, so the calls of the window are each list's new ones; `unitsOf` weighs one.
 */
export async function measureIdleCost(
  processes: () => ClusterProcess[],
  callsSoFar: () => readonly (readonly { method: string }[])[],
  unitsOf: (method: string) => number,
  finalizedBetween: (from: Date, to: Date) => Promise<number>,
  ms: number,
): Promise<IdleCost> {
  const from = new Date();
  const cpuOf = (list: ClusterProcess[]) => new Map(list.map((p) => [p.pid(), treeCpuMs(p.pid())]));
  // The task counts are read outside the CPU readings: serving its metrics page is CPU a process
  // spends only because it is measured.
  const tasksBefore = await tasksOf(processes());
  const before = cpuOf(processes());
  const callsBefore = callsSoFar().map((calls) => calls.length);
  await sleep(ms);
  const listed = processes();
  const after = cpuOf(listed);
  const tasksAfter = await tasksOf(listed);
  const finalizedInWindow = await finalizedBetween(from, new Date());
  const calls = callsSoFar().flatMap((endpoint, i) => endpoint.slice(callsBefore[i] ?? 0));
  const perSecond = (count: number) => count / (ms / 1000);
  const byMethod: Record<string, number> = {};
  for (const call of calls) byMethod[call.method] = (byMethod[call.method] ?? 0) + 1;
  return {
    seconds: ms / 1000,
    // A process restarted meanwhile has no reading from the start: left out.
    processes: listed.flatMap((p) => {
      const from = before.get(p.pid());
      const to = after.get(p.pid());
      const tasksFrom = tasksBefore.get(p.pid());
      const tasksTo = tasksAfter.get(p.pid());
      return from === undefined || to === undefined
        ? []
        : [
            {
              name: p.name,
              pid: p.pid(),
              coreShare: (to - from) / ms,
              ...(tasksFrom && tasksTo && { tasks: countsBetween(tasksFrom, tasksTo) }),
            },
          ];
    }),
    rpcUnitsPerSecond: perSecond(calls.reduce((sum, call) => sum + unitsOf(call.method), 0)),
    rpcCallsPerSecondByMethod: Object.fromEntries(
      Object.entries(byMethod).map(([method, count]) => [method, perSecond(count)]),
    ),
    finalizedInWindow,
  };
}

/**
 * The SDK's task counts of every process that has a page for them, by pid; one that does not
 * answer is left out (its row shows its CPU alone).
 */
async function tasksOf(list: ClusterProcess[]): Promise<Map<number, Map<string, number>>> {
  const read = await Promise.all(
    list.map((p) =>
      p.sdkMetricsUrl
        ? sdkTaskCounts(p.sdkMetricsUrl).then(
            (counts) => [p.pid(), counts] as const,
            () => undefined,
          )
        : undefined,
    ),
  );
  return new Map(read.filter((entry) => entry !== undefined));
}

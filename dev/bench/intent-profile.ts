import { mkdirSync } from 'node:fs';
import { table } from '../../cli/table';
import { busyKinds, busySplitOfProfiles, type BusySplit } from './cpu-profile';
import { persistenceRequests, requestsPerIntent } from './server-requests';

/** Where one intent's cost goes (the bench's --profile), per intent. */
export interface IntentProfile {
  /** The worker processes' threads busy (ms, sampled: see BusySplit) by kind of code. */
  workerBusyMs: BusySplit;
  /** The Temporal server's persistence requests by operation; absent where it has no metrics. */
  serverRequests?: Record<string, number>;
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Profiles one cell: the worker processes started with `nodeFlags` write a CPU profile per thread
 * to `dir` when they exit; the server's metrics page is read at `begin` and `end`, and only the
 * samples between the two count.
 */
export function cellProfiler(dir: string, serverMetricsUrl: string | undefined) {
  mkdirSync(dir, { recursive: true });
  const window = { fromUs: 0, toUs: 0 };
  let requestsBefore: Map<string, number> | undefined;
  let requestsAfter: Map<string, number> | undefined;
  const readRequests = () =>
    serverMetricsUrl === undefined ? undefined : persistenceRequests(serverMetricsUrl);
  return {
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    async begin() {
      requestsBefore = await readRequests();
      window.fromUs = monotonicUs();
    },
    async end() {
      window.toUs = monotonicUs();
      requestsAfter = await readRequests();
    },
    /** Once the worker processes have exited (their profiles are written then). */
    result(intents: number): IntentProfile {
      const workerBusyMs = busySplitOfProfiles(dir, window.fromUs, window.toUs);
      for (const kind of busyKinds) workerBusyMs[kind] /= intents;
      return {
        workerBusyMs,
        ...(requestsBefore &&
          requestsAfter && {
            serverRequests: requestsPerIntent(requestsBefore, requestsAfter, intents),
          }),
      };
    },
  };
}

const busyHeadings: Record<keyof BusySplit, string> = {
  workflowCode: 'workflow code',
  sandboxEntry: 'sandbox entry',
  promiseHook: 'promise hook',
  sdk: 'SDK (main)',
  relayer: 'relayer',
  libraries: 'libraries',
  runtime: 'runtime',
};

/** The profiled cells side by side: busy ms per intent by kind, server requests per intent. */
export function profileTable(cells: readonly { label: string; profile: IntentProfile }[]) {
  const head = [
    'cell',
    ...busyKinds.map((kind) => busyHeadings[kind]),
    'busy in all',
    'server requests/intent',
    'top operations',
  ];
  const rows = table(
    head,
    head.map((heading) => (heading === 'cell' || heading === 'top operations' ? 'left' : 'right')),
  );
  for (const { label, profile } of cells) {
    const busy = busyKinds.map((kind) => profile.workerBusyMs[kind]);
    const requests = Object.entries(profile.serverRequests ?? {});
    rows.push([
      label,
      ...busy.map((ms) => ms.toFixed(1)),
      busy.reduce((sum, ms) => sum + ms, 0).toFixed(1),
      profile.serverRequests
        ? requests.reduce((sum, [, perIntent]) => sum + perIntent, 0).toFixed(1)
        : '—',
      requests
        .slice(0, 5)
        .map(([operation, perIntent]) => `${operation} ${perIntent.toFixed(1)}`)
        .join(', '),
    ]);
  }
  return rows;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { nodeArgumentsFor } from './compiled-entries';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | string>;
  signal(signal: NodeJS.Signals): void;
}

const root = resolve(__dirname, '../../..');

/** The process ended (by its own exit or a signal) before its output said it was ready. */
export class ExitedBeforeReadyError extends Error {
  constructor(
    script: string,
    readonly exit: number | string,
    readonly output: string,
  ) {
    super(`${script} exited (${exit}) before it was ready:\n${output}`);
  }
}

export interface SpawnOptions {
  /** Keep only the last this many characters of its output (a process that runs for hours). */
  outputTail?: number;
  /** Node's own flags before the script, for those NODE_OPTIONS refuses (e.g. --cpu-prof). */
  nodeFlags?: readonly string[];
  /** Start the script's compiled file from here (buildEntryPoints), not the test run's choice. */
  compiledDir?: string;
}

/**
 * A TypeScript entry point as a real child process: node with the tsx loader, or its compiled
 * file in test runs (compiled-entries.ts); no wrapper process in between, so a signal (even
 * SIGKILL) reaches it itself. Resolves once its output matches `ready`.
 */
export async function spawnNodeProcess(
  script: string,
  env: Record<string, string>,
  ready: RegExp,
  { outputTail = Infinity, nodeFlags = [], compiledDir }: SpawnOptions = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...nodeFlags, ...nodeArgumentsFor(script, compiledDir)], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > outputTail * 2) output = output.slice(-outputTail);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<number | string>((done) =>
    child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')),
  );
  const deadline = Date.now() + 60_000;
  while (!ready.test(output)) {
    // A process killed by a signal keeps exitCode null: signalCode says it is gone.
    const exit = child.exitCode ?? child.signalCode;
    if (exit !== null) throw new ExitedBeforeReadyError(script, exit, output);
    if (Date.now() > deadline) {
      // Nobody holds a process that never got ready: it must not outlive the caller.
      child.kill('SIGKILL');
      throw new Error(`${script} not ready after 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => output, exited, signal: (s) => child.kill(s) };
}

/** `npm run worker`, ready once its workers poll. */
export const spawnWorker = (
  env: Record<string, string>,
  options?: SpawnOptions,
): Promise<WorkerProcess> =>
  spawnNodeProcess('workers/worker-main.ts', env, /worker \S+: queue/, options);

export interface StopSummary {
  sent: number;
  retry: number;
  abandoned: number;
  panics: number;
}

/** The numbers of the worker's last line: "pool stopped: sent 2, retry 0, abandoned 0, panics 0". */
export function stopSummary(output: string): StopSummary | undefined {
  const match = output.match(
    /pool stopped: sent (\d+), retry (\d+), abandoned (\d+), panics (\d+)/,
  );
  if (!match) return undefined;
  const [sent, retry, abandoned, panics] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
  ];
  return { sent, retry, abandoned, panics };
}

/** Sends that waited for the RPC pace: the ", paced N" that same line ends with when some did. */
export const pacedSends = (output: string): number =>
  Number(/pool stopped: .*, paced (\d+)/.exec(output)?.[1] ?? 0);

/** Permits taken back by their expiration, never released: the line's ", reclaimed N". */
export const reclaimedPermits = (output: string): number =>
  Number(/pool stopped: .*, reclaimed (\d+)/.exec(output)?.[1] ?? 0);

/** The longest the worker's event loop was held up once it sent: the line's ", longest stall N ms". */
export const longestStallMs = (output: string): number =>
  Number(/pool stopped: .*, longest stall (\d+) ms/.exec(output)?.[1] ?? 0);

/** `npm run api`, ready once it listens. */
export const spawnApi = (
  env: Record<string, string>,
  options?: SpawnOptions,
): Promise<WorkerProcess> => spawnNodeProcess('workers/api-main.ts', env, /api \S+: API /, options);

/** The stop line's counts that add up across processes and endpoints, in the line's order. */
const summedFields = [
  'units',
  'spanMs',
  'busyUnits',
  'busyMs',
  'wakes',
  'lateMs',
  'movedLate',
] as const;

/** What a process's RPC budgets did, from their stop lines (workers/rpc-budgets.ts's tallyLine). */
export interface BudgetLine extends Record<(typeof summedFields)[number], number> {
  calls: number;
  lined: number;
  linedMs: number;
  /** Summed over calls: the mean is this ÷ calls. */
  marginMsSum: number;
  marginMostMs: number;
}

const budgetLinePattern = new RegExp(
  'rpc budget .*?: (\\d+) calls, (\\d+) waited in line for (\\d+) ms in all, ' +
    'margin (\\d+)-(\\d+) ms \\(mean ([\\d.]+)\\); (\\d+) units in (\\d+) ms, ' +
    '(\\d+) of them while the line held calls for (\\d+) ms; (\\d+) wakes, ' +
    '(\\d+) ms late in all; (\\d+) left late',
  'g',
);

export function budgetLines(output: string): BudgetLine {
  const total = {
    calls: 0,
    lined: 0,
    linedMs: 0,
    marginMsSum: 0,
    marginMostMs: 0,
    ...Object.fromEntries(summedFields.map((field) => [field, 0])),
  } as BudgetLine;
  for (const match of output.matchAll(budgetLinePattern)) {
    const [calls, lined, linedMs, , most, mean, ...summed] = match.slice(1).map(Number) as number[];
    total.calls += calls!;
    total.lined += lined!;
    total.linedMs += linedMs!;
    total.marginMsSum += mean! * calls!;
    total.marginMostMs = Math.max(total.marginMostMs, most!);
    summedFields.forEach((field, index) => (total[field] += summed[index]!));
  }
  return total;
}

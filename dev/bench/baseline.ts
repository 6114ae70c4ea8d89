import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { table } from '../../cli/table';
import { cacheDir } from '../../test/harness/stack/toolchain';

const root = resolve(__dirname, '../..');

/** A commit's tree, exported once into the cache with its dependencies, to bench beside ours. */
export interface Baseline {
  sha: string;
  dir: string;
}

/** One cell as a baseline's bench wrote it (`--json`): the columns every version has. */
export interface BaselineCell {
  arm: string;
  intents: number;
  quotaPerSecond: number | null;
  processes: number;
  intentsPerSecond: number;
  historyEventsPerIntent: number | null;
  workflowTasksPerIntent: number | null;
  cpuMsPerIntent: { worker: number; server: number };
  latencyP50Ms?: number;
  latencyP99Ms?: number;
}

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

interface Lock {
  packages: Record<string, { version?: string }>;
}
const readLock = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as Lock;

/**
 * Exports `rev` (git archive, no worktree to register) into the cache. Its dependencies are ours
 * when every package its lock names is in ours at the same version (a link to our node_modules);
 * otherwise its own, installed from its lock.
 */
export function prepareBaseline(rev: string, progress: (message: string) => void): Baseline {
  let sha: string;
  try {
    sha = git('rev-parse', '--verify', `${rev}^{commit}`).trim();
  } catch {
    throw new Error(`--baseline: "${rev}" is not a commit of this repository`);
  }
  const dir = join(cacheDir, 'bench-baselines', sha);
  // Written last: an export or install cut short is done again, not taken as ready.
  const ready = join(dir, '.baseline-ready');
  if (!existsSync(ready)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    progress(`baseline ${sha.slice(0, 7)}: exporting its tree to ${dir}`);
    const archive = join(dir, 'tree.tar');
    git('archive', '--output', archive, sha);
    execFileSync('tar', ['-xf', archive, '-C', dir]);
    rmSync(archive);
    const ours = readLock(root).packages;
    const mismatched = Object.entries(readLock(dir).packages).filter(
      ([path, { version }]) => path !== '' && ours[path]?.version !== version,
    );
    if (mismatched.length === 0) {
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    } else {
      progress(
        `baseline ${sha.slice(0, 7)}: ${mismatched.length} packages differ from ours (${mismatched[0]![0]}, …): npm ci`,
      );
      execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
        cwd: dir,
        stdio: 'inherit',
      });
    }
    writeFileSync(ready, '');
  }
  return { sha, dir };
}

/**
 * Runs the baseline's own bench for one cell (its own dev server, anvil and database: a
 * baseline's schema may be older than ours) and returns what it measured. Its output is shown
 * with a prefix; `args` are flags every version of the bench takes.
 */
export async function benchBaseline(
  baseline: Baseline,
  args: readonly string[],
  out: string,
): Promise<BaselineCell[]> {
  // Absolute: the baseline's bench runs in its own directory.
  const outDir = resolve(out);
  mkdirSync(outDir, { recursive: true });
  const json = join(outDir, 'bench.json');
  rmSync(json, { force: true });
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'dev/bench/three-arms.ts', ...args, '--out', outDir, '--json', json],
    { cwd: baseline.dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const label = `  [${baseline.sha.slice(0, 7)}] `;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => console.log(label + line));
  }
  const exit = await new Promise<number | null>((done) => child.once('exit', done));
  if (exit !== 0 || !existsSync(json)) {
    throw new Error(`the baseline's bench (${baseline.sha.slice(0, 7)}) exited ${exit}`);
  }
  return JSON.parse(readFileSync(json, 'utf8')) as BaselineCell[];
}

/** Each cell beside the same cell of the baseline, as ratios (this build ÷ the baseline). */
export function baselineTable(
  sha: string,
  pairs: readonly { label: string; current: BaselineCell; baseline: BaselineCell }[],
) {
  const rows = table(
    [
      `cell (÷ ${sha.slice(0, 7)})`,
      'intents/s',
      'worker CPU/intent',
      'server CPU/intent',
      'history events',
      'workflow tasks',
      'latency p50',
      'latency p99',
    ],
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  const ratio = (ours: number | null, theirs: number | null) =>
    ours === null || theirs === null || theirs === 0
      ? '–'
      : `${(ours / theirs).toFixed(2)} (${ours.toFixed(1)} ÷ ${theirs.toFixed(1)})`;
  for (const { label, current, baseline } of pairs) {
    rows.push([
      label,
      ratio(current.intentsPerSecond, baseline.intentsPerSecond),
      ratio(current.cpuMsPerIntent.worker, baseline.cpuMsPerIntent.worker),
      ratio(current.cpuMsPerIntent.server, baseline.cpuMsPerIntent.server),
      ratio(current.historyEventsPerIntent, baseline.historyEventsPerIntent),
      ratio(current.workflowTasksPerIntent, baseline.workflowTasksPerIntent),
      ratio(current.latencyP50Ms ?? null, baseline.latencyP50Ms ?? null),
      ratio(current.latencyP99Ms ?? null, baseline.latencyP99Ms ?? null),
    ]);
  }
  return rows;
}

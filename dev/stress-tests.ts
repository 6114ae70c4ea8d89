import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { table } from '../cli/table';

/**
 * `npm run test:stress -- [--rounds 3] [--hogs 1] [--tier test] [--projects a,b]`: a tier's files
 * (test/tiers.js; `npm test`'s by default), or those of the projects named, R rounds, each beside
 * CPU hogs and with a seed of its own (FAULT_SEED). Every test that failed is run once more alone, same seed,
 * no hog: passing then, it failed by chance (a defect to fix); failing again, it fails for a
 * reason. A failure whose message says a server did not start in time is listed apart: the hog
 * starved a start-up, not the test's own logic.
 */
const root = resolve(__dirname, '..');
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    hogs: { type: 'string', default: '1' },
    tier: { type: 'string', default: 'test' },
    projects: { type: 'string', default: '' },
  },
});

function wholeFlag(name: string, raw: string, least: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < least) {
    throw new Error(`--${name} must be a whole number of at least ${least} (got "${raw}")`);
  }
  return Number(raw);
}

const rounds = wholeFlag('rounds', values.rounds, 1);
const hogs = wholeFlag('hogs', values.hogs, 0);
const projects = values.projects.split(',').filter(Boolean);

/** Messages of a server or tool that did not come up in time (test/harness/stack's and the SDK's words). */
const serverStartFailure =
  /did not (start|answer)|not ready after|failed to start ephemeral|timed out waiting for (the )?server/i;

interface AssertionResult {
  fullName: string;
  status: string;
  failureMessages: string[];
}
interface FileResult {
  name: string;
  status: string;
  message: string;
  assertionResults: AssertionResult[];
}
interface JestResults {
  numTotalTests: number;
  testResults: FileResult[];
}

interface Failure {
  round: number;
  seed: number;
  file: string;
  /** The test's full name; undefined when the file failed outside its tests (a hook, a setup). */
  test?: string;
  message: string;
}

let running: ChildProcess | undefined;
const hogProcesses: ChildProcess[] = [];
const stopEverything = () => {
  if (running?.pid !== undefined) {
    try {
      process.kill(-running.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  for (const hog of hogProcesses) hog.kill('SIGKILL');
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopEverything();
    process.exit(130);
  });
}

function startHogs(count: number): void {
  for (let i = 0; i < count; i++) {
    hogProcesses.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
}

function stopHogs(): void {
  for (const hog of hogProcesses.splice(0)) hog.kill('SIGKILL');
}

/** One jest run in a process group of its own (killed whole after: no server outlives it). */
function runJest(args: string[], seed: number, resultsFile: string): Promise<JestResults> {
  rmSync(resultsFile, { force: true });
  return new Promise((done, fail) => {
    const jest = spawn(
      process.execPath,
      [require.resolve('jest/bin/jest'), ...args, '--json', `--outputFile=${resultsFile}`],
      {
        cwd: root,
        stdio: 'inherit',
        detached: true,
        env: { ...process.env, FAULT_SEED: String(seed), TEST_TIER: values.tier },
      },
    );
    running = jest;
    jest.on('exit', () => {
      try {
        process.kill(-jest.pid!, 'SIGKILL');
      } catch {
        // the group is empty
      }
      running = undefined;
      try {
        done(JSON.parse(readFileSync(resultsFile, 'utf8')) as JestResults);
      } catch (error) {
        fail(new Error(`jest wrote no results to ${resultsFile}`, { cause: error }));
      }
    });
  });
}

function failuresOf(results: JestResults, round: number, seed: number): Failure[] {
  return results.testResults.flatMap((file): Failure[] => {
    const path = relative(root, file.name);
    const failed = file.assertionResults.filter((test) => test.status === 'failed');
    if (failed.length === 0 && file.status === 'failed') {
      return [{ round, seed, file: path, message: file.message }];
    }
    return failed.map((test) => ({
      round,
      seed,
      file: path,
      test: test.fullName,
      message: test.failureMessages.join('\n'),
    }));
  });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Runs the failed test alone with its seed and no hog: does it pass now? */
async function passesAlone(failure: Failure, resultsFile: string): Promise<boolean> {
  // In each of the tier's projects that holds the file (its SQLite and its PostgreSQL run).
  const args = ['--runTestsByPath', failure.file];
  if (failure.test) args.push('-t', `^${escapeRegExp(failure.test)}$`);
  const results = await runJest(args, failure.seed, resultsFile);
  return failuresOf(results, failure.round, failure.seed).length === 0;
}

async function main(): Promise<number> {
  const outputDir = resolve(root, 'test-output', 'stress');
  mkdirSync(outputDir, { recursive: true });
  const roundsTable = table(
    ['round', 'seed', 'tests', 'failed', 'minutes'],
    ['right', 'right', 'right', 'right', 'right'],
  );
  const failures: Failure[] = [];
  let testsRun = 0;
  for (let round = 1; round <= rounds; round++) {
    const seed = randomInt(2 ** 31);
    console.error(
      `\n=== stress round ${round} of ${rounds}: FAULT_SEED=${seed}, ${hogs} CPU hog(s)`,
    );
    const startedAt = Date.now();
    startHogs(hogs);
    let results: JestResults;
    try {
      results = await runJest(
        projects.length > 0 ? ['--selectProjects', ...projects] : [],
        seed,
        resolve(outputDir, `round-${round}.json`),
      );
    } finally {
      stopHogs();
    }
    const found = failuresOf(results, round, seed);
    failures.push(...found);
    testsRun += results.numTotalTests;
    roundsTable.push([
      round,
      seed,
      results.numTotalTests,
      found.length,
      ((Date.now() - startedAt) / 60_000).toFixed(1),
    ]);
  }

  const kinds = { chance: 0, again: 0, serverStart: 0 };
  const failureTable = table(
    ['round', 'seed', 'file', 'test', 'kind'],
    ['right', 'right', 'left', 'left', 'left'],
  );
  for (const [index, failure] of failures.entries()) {
    let kind: string;
    if (serverStartFailure.test(failure.message)) {
      kinds.serverStart++;
      kind = 'server did not start in time (listed apart)';
    } else {
      console.error(
        `\n=== again, alone and without a hog: ${failure.file} ${failure.test ?? '(the file)'}`,
      );
      const passed = await passesAlone(failure, resolve(outputDir, `again-${index}.json`));
      if (passed) kinds.chance++;
      else kinds.again++;
      kind = passed ? 'CHANCE: passed again with its seed' : 'fails again with its seed';
    }
    failureTable.push([
      failure.round,
      failure.seed,
      failure.file,
      failure.test ?? '(the file)',
      kind,
    ]);
  }

  console.log(`\n${roundsTable.toString()}`);
  if (failures.length > 0) console.log(failureTable.toString());
  const summary = table(
    ['rounds', 'tests run', 'chance failures', 'fail again', 'server starts'],
    ['right', 'right', 'right', 'right', 'right'],
  );
  summary.push([rounds, testsRun, kinds.chance, kinds.again, kinds.serverStart]);
  console.log(summary.toString());
  return kinds.chance + kinds.again > 0 ? 1 : 0;
}

void main()
  .catch((error: unknown) => {
    console.error(error);
    return 1;
  })
  .then((code) => {
    stopEverything();
    process.exit(code);
  });

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { table } from '../cli/table';
import * as plan from '../test/tiers';
import { listProcesses } from '../test/harness/stack/children';

/**
 * `npm test` runs the `test` tier of test/tiers.js, `npm run test:ci` (`-- --tier ci`) and `npm
 * run test:deep` (`-- --tier deep`) theirs; `npm test -- <jest args>` runs jest with those
 * arguments over every tier instead. The jest run gets a process group of its own, so whatever it
 * started can be found afterwards: a process still alive then is a teardown that did not happen —
 * it is killed, named, and the run fails. The run ends with its ten slowest files.
 */
const root = resolve(__dirname, '..');
const { tier, jestArgs } = tierAndJestArguments(process.argv.slice(2));
/** How the summary names this run: `npm test`, `npm run test:deep`. */
const command =
  process.env.npm_lifecycle_event === 'test' || !process.env.npm_lifecycle_event
    ? 'npm test'
    : `npm run ${process.env.npm_lifecycle_event}`;
const resultsFile = resolve(root, 'test-output', 'jest-results.json');
const jestArguments = [...jestArgs, '--json', `--outputFile=${resultsFile}`];

/** `--tier <name>` (the `test` tier when there are no arguments at all) and jest's own. */
function tierAndJestArguments(args: string[]): { tier?: string; jestArgs: string[] } {
  if (args.length === 0) return { tier: 'test', jestArgs: [] };
  if (args[0] !== '--tier') return { jestArgs: args };
  const tiers = Object.keys(plan.tiers);
  if (!args[1] || !tiers.includes(args[1])) {
    throw new Error(`--tier must be one of ${tiers.join(', ')} (got "${args[1] ?? ''}")`);
  }
  return { tier: args[1], jestArgs: args.slice(2) };
}

let running: number | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (running !== undefined) process.kill(-running, signal);
  });
}

function runJest(args: string[]): Promise<number> {
  return new Promise((done) => {
    // jest's JSON goes to the file; its usual report to the terminal.
    const jest = spawn(process.execPath, [require.resolve('jest/bin/jest'), ...args], {
      stdio: 'inherit',
      detached: true,
      env: { ...process.env, ...(tier && { TEST_TIER: tier }) },
    });
    running = jest.pid;
    jest.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

/** Processes of jest's group still running once jest has exited. */
async function leftoversOf(group: number) {
  // A server told to stop as jest exited may need a moment; after that it counts as left over.
  for (let tries = 0; ; tries++) {
    const alive = listProcesses().filter((p) => p.groupId === group && p.state !== 'Z');
    if (alive.length === 0 || tries === 20) return alive;
    await new Promise((wait) => setTimeout(wait, 250));
  }
}

interface JestResults {
  testResults: { name: string; startTime: number; endTime: number; status: string }[];
}

/** The ten files that took longest, from jest's JSON results (none if jest wrote none). */
function slowestFiles(): string | undefined {
  let results: Partial<JestResults>;
  try {
    results = JSON.parse(readFileSync(resultsFile, 'utf8')) as Partial<JestResults>;
  } catch {
    return undefined;
  }
  if (!Array.isArray(results.testResults) || results.testResults.length === 0) return undefined;
  const files = results.testResults
    .map((file) => ({ ...file, seconds: (file.endTime - file.startTime) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 10);
  const slowest = table(['slowest files', 'seconds', 'result'], ['left', 'right', 'left']);
  for (const file of files) {
    slowest.push([relative(root, file.name), file.seconds.toFixed(1), file.status]);
  }
  return slowest.toString();
}

async function main(): Promise<number> {
  mkdirSync(resolve(root, 'test-output'), { recursive: true });
  rmSync(resultsFile, { force: true });
  const startedAt = Date.now();
  const code = await runJest(jestArguments);
  const group = running!;
  running = undefined;
  const leftovers = await leftoversOf(group);
  const slowest = slowestFiles();
  if (slowest) console.error(`\n${slowest}`);
  console.error(`${command}: ${((Date.now() - startedAt) / 1000).toFixed(0)} s in all`);
  if (leftovers.length > 0) {
    console.error(
      `\n${command}: ${leftovers.length} process(es) the tests started were still running after ` +
        'jest ended (killed now):\n' +
        leftovers.map((p) => `  ${p.pid} ${p.command.slice(0, 160)}`).join('\n'),
    );
    for (const p of leftovers) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    return 1;
  }
  return code;
}

void main().then((code) => process.exit(code));

import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import vm from 'node:vm';
import { promiseHooks } from 'node:v8';
import { table } from '../../cli/table';
import { installRuntime } from '../../workers/runtime';
import { writeWorkflowBundle } from '../../workers/workflow-code';
import { nodeArgumentsFor } from '../../test/harness/stack/compiled-entries';

// What our workflow code costs the worker's workflow side alone, without a server, a chain or
// the noise of both: recorded histories replayed on the current bundle, counting per replay the
// CPU, the calls into the sandbox (each arms the SDK's execution timeout: a watchdog thread) and
// the promises created in workflow code (each gets a stack captured by the SDK's promise hook).
// `npm run bench:replay -- [--replays 300] [history names…]`

const historiesDir = resolve(__dirname, '../../test/replay/histories');
const defaultHistories = [
  'payment-intent-confirmed',
  'payment-intent-token-confirmed',
  'payment-intent-confirmed-after-throttle',
];

interface Measured {
  events: number;
  cpuMs: number;
  sandboxEntries: number;
  workflowPromises: number;
}

/** Counts calls into workflow sandboxes: the SDK enters one through a vm.Script each time. */
function countSandboxEntries(): { count: number } {
  const counter = { count: 0 };
  const runInContext = vm.Script.prototype.runInContext;
  vm.Script.prototype.runInContext = function (this: vm.Script, ...args) {
    counter.count++;
    return runInContext.apply(this, args);
  };
  return counter;
}

/** Counts promises created in another realm than this one's: the workflow context's. */
function countWorkflowPromises(): { count: number } {
  const counter = { count: 0 };
  promiseHooks.onInit((promise) => {
    if (promise.constructor !== Promise) counter.count++;
  });
  return counter;
}

/** One history, replayed in this process: warmed, then measured (per replay). */
async function measureOne(codePath: string, name: string, replays: number): Promise<Measured> {
  installRuntime('WARN');
  const sandboxEntries = countSandboxEntries();
  const promises = countWorkflowPromises();
  const history = historyFromJSON(
    JSON.parse(readFileSync(join(historiesDir, `${name}.json`), 'utf8')),
  );
  // debugMode: the workflows run on this thread, where the counters see them.
  const options = { workflowBundle: { codePath }, debugMode: true };
  const replay = async (count: number) => {
    const runs = Array.from({ length: count }, (_, i) => ({ workflowId: `${name}-${i}`, history }));
    for await (const result of Worker.runReplayHistories(options, runs)) {
      if (result.error) throw result.error;
    }
  };
  await replay(Math.min(100, replays)); // the bundle's context and the JIT, warmed
  sandboxEntries.count = 0;
  promises.count = 0;
  const before = process.cpuUsage();
  await replay(replays);
  const cpu = process.cpuUsage(before);
  return {
    events: history.events?.length ?? 0,
    cpuMs: (cpu.user + cpu.system) / 1000 / replays,
    sandboxEntries: sandboxEntries.count / replays,
    workflowPromises: promises.count / replays,
  };
}

function parseArguments(argv: string[]): { replays: number; names: string[]; child?: string } {
  let replays = 300;
  let child: string | undefined;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i]!;
    if (argument === '--replays') {
      replays = Number(argv[++i]);
      if (!Number.isInteger(replays) || replays < 1) {
        console.error(`bench:replay: --replays: "${argv[i]}" is not a whole number above 0`);
        process.exit(2);
      }
    } else if (argument === '--bundle') child = argv[++i];
    else names.push(argument.replace(/\.json$/, ''));
  }
  const chosen = names.length > 0 ? names : defaultHistories;
  const missing = chosen.filter((name) => !existsSync(join(historiesDir, `${name}.json`)));
  if (missing.length > 0) {
    console.error(
      `bench:replay: no recorded history ${missing.map((name) => `"${name}"`).join(', ')}: give a file's name under ${historiesDir}, without .json (e.g. before-intent-v2/payment-intent-confirmed)`,
    );
    process.exit(2);
  }
  return { replays, names: chosen, child };
}

async function main(): Promise<void> {
  const { replays, names, child } = parseArguments(process.argv.slice(2));
  if (child !== undefined) {
    // A process of its own per history: the cost of a replay grows with the replays before it
    // in one process, so histories measured one after another would not compare.
    console.log(JSON.stringify(await measureOne(child, names[0]!, replays)));
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'replay-cost-'));
  try {
    const codePath = join(dir, 'workflow-bundle.js');
    await writeWorkflowBundle(codePath);
    const rows = table(
      [
        'history',
        'events',
        'replays',
        'CPU ms / replay',
        'sandbox entries / replay',
        'workflow promises / replay',
      ],
      ['left', 'right', 'right', 'right', 'right', 'right'],
    );
    for (const name of names) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          ...nodeArgumentsFor('dev/bench/workflow-replay-cost.ts'),
          '--bundle',
          codePath,
          '--replays',
          String(replays),
          name,
        ],
        { cwd: resolve(__dirname, '../..'), maxBuffer: 16 * 1024 * 1024 },
      );
      const measured = JSON.parse(stdout.trim().split('\n').at(-1)!) as Measured;
      rows.push([
        name,
        String(measured.events),
        String(replays),
        measured.cpuMs.toFixed(2),
        measured.sandboxEntries.toFixed(1),
        measured.workflowPromises.toFixed(1),
      ]);
      console.log(`${name}: ${replays} replays`);
    }
    console.log(rows.toString());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

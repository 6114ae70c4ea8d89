import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import vm from 'node:vm';
import { promiseHooks } from 'node:v8';
import { table } from '../../cli/table';
import { installRuntime } from '../../workers/runtime';
import { writeWorkflowBundle } from '../../workers/workflow-code';

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

function parseArguments(argv: string[]): { replays: number; names: string[] } {
  let replays = 300;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i]!;
    if (argument === '--replays') {
      replays = Number(argv[++i]);
      if (!Number.isInteger(replays) || replays < 1) {
        console.error(`bench:replay: --replays: "${argv[i]}" is not a whole number above 0`);
        process.exit(2);
      }
    } else names.push(argument.replace(/\.json$/, ''));
  }
  return { replays, names: names.length > 0 ? names : defaultHistories };
}

async function main(): Promise<void> {
  const { replays, names } = parseArguments(process.argv.slice(2));
  installRuntime('WARN');
  const sandboxEntries = countSandboxEntries();
  const promises = countWorkflowPromises();
  const dir = mkdtempSync(join(tmpdir(), 'replay-cost-'));
  try {
    const codePath = join(dir, 'workflow-bundle.js');
    await writeWorkflowBundle(codePath);
    // debugMode: the workflows run on this thread, where the counters see them.
    const options = { workflowBundle: { codePath }, debugMode: true };
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
      const file = join(historiesDir, `${name}.json`);
      const history = historyFromJSON(JSON.parse(readFileSync(file, 'utf8')));
      const replay = async (count: number) => {
        const histories = Array.from({ length: count }, (_, i) => ({
          workflowId: `${name}-${i}`,
          history,
        }));
        for await (const result of Worker.runReplayHistories(options, histories)) {
          if (result.error) throw result.error;
        }
      };
      await replay(Math.min(100, replays)); // warms the bundle's context and the JIT
      sandboxEntries.count = 0;
      promises.count = 0;
      const before = process.cpuUsage();
      await replay(replays);
      const cpu = process.cpuUsage(before);
      rows.push([
        name,
        String(history.events?.length ?? 0),
        String(replays),
        ((cpu.user + cpu.system) / 1000 / replays).toFixed(2),
        (sandboxEntries.count / replays).toFixed(1),
        (promises.count / replays).toFixed(1),
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

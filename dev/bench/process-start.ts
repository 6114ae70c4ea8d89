import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { table } from '../../cli/table';
import bundleWorkflows, { testOutputDir } from '../../test/harness/bundle-workflows';
import { processUsage, reapedChildrenCpuMs } from '../../test/harness/process-usage';
import { freePort } from '../../test/harness/stack/free-port';
import { compileEntryPoints, nodeArgumentsFor } from '../../test/harness/stack/compiled-entries';
import { startLocalWorld } from '../../test/harness/stack/local-world';
import { startDevServer } from '../../test/harness/stack/temporal-servers';
import { spawnApi, spawnWorker, type WorkerProcess } from '../../test/harness/stack/worker-process';

/**
 * `npm run bench:process-start -- [runs]`: the CPU a worker process, an API process and the CLI
 * spend from their start until ready (worker polling, API listening) or done (the CLI), each
 * started `runs` times (5) from the entry points the test suites start (compiled with esbuild),
 * one at a time on a quiet machine. Medians and maxima, in ms of CPU (user + system).
 */
const runs = Number(process.argv[2] ?? 5);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`runs must be a whole number ≥ 1`);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function readyCpuMs(start: () => Promise<WorkerProcess>): Promise<number> {
  const started = await start();
  const { cpuMs } = processUsage(started.child.pid!);
  started.signal('SIGTERM');
  await started.exited;
  return cpuMs;
}

async function cliCpuMs(args: string[]): Promise<number> {
  const before = reapedChildrenCpuMs('self');
  await promisify(execFile)(process.execPath, [...nodeArgumentsFor('cli/relayer.ts'), ...args], {
    cwd: resolve(__dirname, '../..'),
    env: { ...process.env, RELAYER_API_URL: 'http://127.0.0.1:9', RELAYER_API_KEY: 'unused' },
  }).catch(() => undefined);
  return reapedChildrenCpuMs('self') - before;
}

async function main(): Promise<void> {
  await Promise.all([bundleWorkflows(), compileEntryPoints(resolve(testOutputDir, 'entries'))]);
  const server = await startDevServer({ logPath: resolve(testOutputDir, 'process-start.log') });
  const world = await startLocalWorld({ temporalAddress: server.address });
  try {
    const cells: [string, () => Promise<number>][] = [
      ['worker (ready: polling)', () => readyCpuMs(() => spawnWorker(world.env()))],
      [
        'API (ready: listening)',
        () => readyCpuMs(async () => spawnApi(world.env({ API_PORT: String(await freePort()) }))),
      ],
      ['CLI --help', () => cliCpuMs(['--help'])],
      ['CLI status (an API call)', () => cliCpuMs(['status', 'pi_unknown'])],
    ];
    const rows = table(
      ['process', 'runs', 'median CPU ms', 'max CPU ms'],
      ['left', 'right', 'right', 'right'],
    );
    for (const [name, measure] of cells) {
      const samples: number[] = [];
      for (let run = 0; run < runs; run++) {
        samples.push(await measure());
        process.stderr.write(`\r${name}: ${samples.length}/${runs}`);
      }
      process.stderr.write('\n');
      rows.push([name, runs, median(samples), Math.max(...samples)]);
    }
    console.log(rows.toString());
  } finally {
    await world.stop();
    await server.teardown();
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

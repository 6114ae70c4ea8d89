import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../test/harness/stack/free-port';
import { startPostgres } from '../../test/harness/stack/postgres';
import { startTemporalServer } from '../../test/harness/stack/temporal-server';
import { startDevServer } from '../../test/harness/stack/temporal-servers';
import { treeCpuMs } from '../../test/harness/process-usage';
import { installRuntime } from '../../workers/runtime';
import { writeWorkflowBundle, writeWorkflowBundles } from '../../workers/workflow-code';
import { startJaeger } from '../../test/harness/stack/jaeger';
import { buildEntryPoints } from '../../test/harness/stack/compiled-entries';
import { armEntryPoints } from './arms';

const entriesDir = () => {
  const parent = resolve(__dirname, '../../test-output');
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, 'bench-entries-'));
};

export interface BenchStack {
  temporalAddress: string;
  /** The dev server's Prometheus page, when asked for (--profile). */
  temporalMetricsUrl?: string;
  /** A second dev server with the CLI's stock settings, when asked for (arm S). */
  stockAddress?: string;
  /** The Temporal server on PostgreSQL as `npm run cluster` runs it, when asked for (arm P). */
  cluster?: { address: string; cpuMs(): number };
  /** Built once, so worker processes start without bundling the workflows each time. */
  bundlePath: string;
  /** Where traced cells export their spans (a Jaeger), when any cell is traced. */
  otlpEndpoint?: string;
  /** The arms' entry points compiled once, when any cell runs them compiled. */
  compiledEntriesDir?: string;
}

/** A dev server (and a stock one) and a workflow bundle for one run, removed afterwards. */
export async function withBenchStack<T>(
  run: (stack: BenchStack) => Promise<T>,
  options: {
    stock?: boolean;
    cluster?: boolean;
    serverMetrics?: boolean;
    traces?: boolean;
    compiled?: boolean;
  } = {},
): Promise<T> {
  installRuntime('WARN');
  const dir = mkdtempSync(join(tmpdir(), 'relayer-bench-'));
  // Inside the project, where the compiled files find node_modules as the production image's do.
  const compiledEntriesDir = options.compiled ? entriesDir() : undefined;
  if (compiledEntriesDir) await buildEntryPoints(compiledEntriesDir, armEntryPoints);
  const bundlePath = join(dir, 'workflow-bundle.js');
  // Traced cells' workers load the bundle's traced twin.
  await (options.traces ? writeWorkflowBundles(bundlePath) : writeWorkflowBundle(bundlePath));
  const jaeger = options.traces ? await startJaeger((m) => console.log(m)) : undefined;
  const metricsPort = options.serverMetrics ? await freePort() : undefined;
  // Without the fair matcher, as every figure before priorities was measured.
  const server = await startDevServer({ metricsPort, settings: 'fifo' });
  const stock = options.stock ? await startDevServer({ settings: 'stock' }) : undefined;
  const postgres = options.cluster ? await startPostgres() : undefined;
  const cluster = postgres
    ? await startTemporalServer({ postgresUrl: postgres.url, progress: (m) => console.log(m) })
    : undefined;
  try {
    return await run({
      temporalAddress: server.address,
      ...(metricsPort !== undefined && {
        temporalMetricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
      }),
      stockAddress: stock?.address,
      bundlePath,
      ...(jaeger && { otlpEndpoint: jaeger.otlpEndpoint }),
      ...(compiledEntriesDir && { compiledEntriesDir }),
      ...(cluster && {
        cluster: {
          address: cluster.address,
          // The server's work is also its database's.
          cpuMs: () => treeCpuMs(cluster.pid()) + treeCpuMs(postgres!.pid()),
        },
      }),
    });
  } finally {
    await Promise.all([server.teardown(), stock?.teardown(), cluster?.stop(), jaeger?.stop()]);
    await postgres?.stop();
    for (const removed of [dir, compiledEntriesDir]) {
      if (removed) rmSync(removed, { recursive: true, force: true });
    }
  }
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../stack/temporal-servers';
import { installRuntime } from '../../workers/runtime';
import { writeWorkflowBundle } from '../../workers/workflow-code';

export interface BenchStack {
  temporalAddress: string;
  /** A second dev server with the CLI's stock settings, when asked for (arm S). */
  stockAddress?: string;
  /** Built once, so worker processes start without bundling the workflows each time. */
  bundlePath: string;
}

/** A dev server (and a stock one) and a workflow bundle for one run, removed afterwards. */
export async function withBenchStack<T>(
  run: (stack: BenchStack) => Promise<T>,
  options: { stock?: boolean } = {},
): Promise<T> {
  installRuntime('WARN');
  const dir = mkdtempSync(join(tmpdir(), 'relayer-bench-'));
  const bundlePath = join(dir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundlePath);
  const server = await startDevServer();
  const stock = options.stock ? await startDevServer({ settings: 'stock' }) : undefined;
  try {
    return await run({ temporalAddress: server.address, stockAddress: stock?.address, bundlePath });
  } finally {
    await Promise.all([server.teardown(), stock?.teardown()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

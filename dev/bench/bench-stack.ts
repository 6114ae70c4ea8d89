import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer } from '../stack/temporal-servers';
import { installRuntime } from '../../workers/runtime';
import { writeWorkflowBundle } from '../../workers/workflow-code';

export interface BenchStack {
  temporalAddress: string;
  /** Built once, so worker processes start without bundling the workflows each time. */
  bundlePath: string;
}

/** A dev server and a workflow bundle for one benchmark run, removed afterwards. */
export async function withBenchStack<T>(run: (stack: BenchStack) => Promise<T>): Promise<T> {
  installRuntime('WARN');
  const dir = mkdtempSync(join(tmpdir(), 'relayer-bench-'));
  const bundlePath = join(dir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundlePath);
  const server = await startDevServer();
  try {
    return await run({ temporalAddress: server.address, bundlePath });
  } finally {
    await server.teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}

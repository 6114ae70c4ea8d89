import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { resolve } from 'node:path';
import { installRuntime } from '../../workers/runtime';
import { compileEntryPoints } from './stack/compiled-entries';
import { startDevServer } from './stack/temporal-servers';
import bundleWorkflows, { testOutputDir } from './bundle-workflows';

const shared = globalThis as { __devServer?: TestWorkflowEnvironment };

/**
 * One Temporal dev server for the whole run, shared by the projects that need one; tests isolate
 * themselves by task queue. The address reaches test files (child processes) through the env, as
 * do the workflow bundle and the compiled entry points the suites' processes start from.
 */
export default async function startSharedDevServer(): Promise<void> {
  if (shared.__devServer) return;
  installRuntime('WARN');
  await Promise.all([bundleWorkflows(), compileEntryPoints(resolve(testOutputDir, 'entries'))]);
  const logPath = resolve(testOutputDir, 'temporal-dev-server.log');
  shared.__devServer = await startDevServer({
    logPath,
    progress: (message) => console.log(message),
  });
  console.log(`Temporal dev server on ${shared.__devServer.address}, its log in ${logPath}`);
  process.env.TEMPORAL_TEST_ADDRESS = shared.__devServer.address;
}

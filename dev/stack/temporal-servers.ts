import { TestWorkflowEnvironment } from '@temporalio/testing';
import { addSearchAttributes } from '../../workers/ensure-search-attributes';
import { relayerSearchAttributes } from '../../workflows/search-attributes';
import { reapChildrenOnExit } from './children';
import { ensureTemporalCli, ensureTestServer, type ResolvedBinary } from './temporal-binaries';
import { ToolchainMissingError, type Progress } from './toolchain';

export interface DevServerOptions {
  /** Default: a free port. */
  port?: number;
  /** Web UI port; omit for no UI. */
  uiPort?: number;
  /** SQLite file that keeps workflows across restarts; omit to keep them in memory. */
  dbFilename?: string;
  progress?: Progress;
}

/** The Temporal CLI dev server with the relayer's search attributes registered. */
export async function startDevServer(
  options: DevServerOptions = {},
): Promise<TestWorkflowEnvironment> {
  const cli = await ensureTemporalCli(options.progress);
  options.progress?.(`Temporal CLI from ${cli.source}`);
  reapChildrenOnExit();
  return explainDownloadFailure(
    cli,
    'Go (to build the Temporal CLI), or set TEMPORAL_CLI_PATH',
    () =>
      TestWorkflowEnvironment.createLocal({
        server: {
          executable: cli.executable,
          ...(options.port !== undefined && { port: options.port }),
          ...(options.uiPort !== undefined && { ui: true, uiPort: options.uiPort }),
          ...(options.dbFilename !== undefined && { dbFilename: options.dbFilename }),
          searchAttributes: relayerSearchAttributes,
          log: { format: 'pretty', level: 'error' },
          // A worker that schedules an activity on its own queue may then run it at once, skipping
          // a round of matching: about a quarter less server work per intent, measured here.
          extraArgs: ['--dynamic-config-value', 'system.enableActivityEagerExecution=true'],
        },
      }),
  );
}

/** The Java test server, whose clock jumps to the next timer when workflows wait. */
export async function startTimeSkippingServer(
  progress?: Progress,
): Promise<TestWorkflowEnvironment> {
  const server = await ensureTestServer(progress);
  reapChildrenOnExit();
  const env = await explainDownloadFailure(
    server,
    'Java 17+ and Maven (to fetch temporal-test-server), or set TEMPORAL_TEST_SERVER_PATH',
    () => TestWorkflowEnvironment.createTimeSkipping({ server: { executable: server.executable } }),
  );
  // The test server implements adding search attributes but not listing them.
  await addSearchAttributes(env.connection, 'default');
  return env;
}

/** Without a local binary the SDK downloads one; offline, say what to install instead. */
async function explainDownloadFailure<T>(
  binary: ResolvedBinary,
  install: string,
  start: () => Promise<T>,
): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (binary.executable.type !== 'cached-download') throw error;
    throw new ToolchainMissingError(
      `no local Temporal binary and the SDK could not download one (no internet?). Install ${install}.`,
      { cause: error },
    );
  }
}

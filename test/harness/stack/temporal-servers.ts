import { TypedSearchAttributes } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { addSearchAttributes } from '../../../workers/ensure-search-attributes';
import { relayerSearchAttributes } from '../../../workflows/search-attributes';
import { reapChildrenOnExit, stopProcess } from './children';
import { freePort } from './free-port';
import { ensureTemporalCli, ensureTestServer, type ResolvedBinary } from './temporal-binaries';
import { ToolchainMissingError, type Progress } from './toolchain';
import { startTemporalFrontend } from './temporal-frontend';

export interface DevServerOptions {
  /** Default: a free port. */
  port?: number;
  /** Web UI port; omit for no UI. */
  uiPort?: number;
  /** SQLite file that keeps workflows across restarts; omit to keep them in memory. */
  dbFilename?: string;
  /**
   * `tuned` (the default): the settings below and the fair matcher; `fifo`: tuned without the fair
   * matcher (each task queue in arrival order, as before priorities: the benchmark's servers, so
   * figures compare across versions); `stock`: the CLI's own settings.
   */
  settings?: 'tuned' | 'fifo' | 'stock';
  /** Serve the server's Prometheus metrics on this port (the bench's --profile reads them). */
  metricsPort?: number;
  /**
   * Where the server's own output goes. Only a local CLI binary honours it: the one the SDK
   * downloads writes to this process's stdout and stderr, as it does by default.
   */
  logPath?: string;
  progress?: Progress;
}

/**
 * Dev-server settings that cut the server's work per task on one machine, each measured with
 * `npm run bench` (arm S runs the relayer on the stock server beside them):
 * - a worker that schedules an activity on its own queue runs it at once, skipping a round of
 *   matching (about a quarter less server work per intent);
 * - search attributes are read from the cache: the CLI re-reads them on every lookup, so that a
 *   new one shows at once (ours are registered when the server starts);
 * - one partition per task queue: four (the default) only add forwarding between them on a single
 *   node;
 * - a timer fires on time: the server puts a new timer no earlier than now + this shift (1 s by
 *   default), so a permit's short wait, a paced send's retry or a busy turn waited a second or
 *   more however short it asked for;
 * - room for a Worker Deployment per task queue: a test's workers are a deployment of their own,
 *   and the server refuses the 101st in a namespace (its log says so; the workers only time out).
 */
export const tunedDevServerSettings: Record<string, string | number | boolean> = {
  'system.enableActivityEagerExecution': true,
  'system.forceSearchAttributesCacheRefreshOnRead': false,
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'history.timerProcessorMaxTimeShift': '50ms',
  'matching.maxDeployments': 10_000,
};

/**
 * The matcher that orders a task queue's backlog by priority key and shares it between fairness
 * keys (server 1.29, both off by default). Eager activities skip the matcher, so its order does not
 * reach an activity a worker runs at once on its own queue.
 */
export const fairTaskQueueSettings: Record<string, boolean> = {
  'matching.useNewMatcher': true,
  'matching.enableFairness': true,
};

/** The Temporal CLI dev server with the relayer's search attributes registered. */
export async function startDevServer(
  options: DevServerOptions = {},
): Promise<TestWorkflowEnvironment> {
  const cli = await ensureTemporalCli(options.progress);
  options.progress?.(`Temporal CLI from ${cli.source}`);
  reapChildrenOnExit();
  const extraArgs = [
    ...(options.metricsPort !== undefined ? ['--metrics-port', String(options.metricsPort)] : []),
    ...(options.settings === 'stock'
      ? []
      : Object.entries({
          ...tunedDevServerSettings,
          ...(options.settings !== 'fifo' && fairTaskQueueSettings),
        }).flatMap(([key, value]) => [
          '--dynamic-config-value',
          `${key}=${JSON.stringify(value)}`,
        ])),
  ];
  if (options.logPath !== undefined && cli.executable.type === 'existing-path') {
    return startDevServerLoggingTo(options.logPath, cli.executable.path, options, extraArgs);
  }
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
          extraArgs,
        },
      }),
  );
}

/**
 * The SDK starts the CLI with this process's stdout and stderr, so its banner (ports, a metrics
 * address of its own) lands in the middle of a demo's output, and it has no option to send it
 * elsewhere. Started here with the arguments the SDK would give, the CLI writes to a file.
 */
async function startDevServerLoggingTo(
  logPath: string,
  executable: string,
  options: DevServerOptions,
  extraArgs: string[],
): Promise<TestWorkflowEnvironment> {
  const port = options.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const args = [
    ...['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port)],
    ...['--namespace', 'default', '--log-format', 'pretty', '--log-level', 'error'],
    ...(options.uiPort !== undefined ? ['--ui-port', String(options.uiPort)] : ['--headless']),
    ...(options.dbFilename !== undefined ? ['--db-filename', options.dbFilename] : []),
    ...relayerSearchAttributes.flatMap((key) => [
      '--search-attribute',
      `${key.name}=${TypedSearchAttributes.toMetadataType(key.type)}`,
    ]),
    ...[
      'frontend.enableServerVersionCheck=false',
      'frontend.enableUpdateWorkflowExecution=true',
      'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
    ].flatMap((setting) => ['--dynamic-config-value', setting]),
    ...extraArgs,
  ];
  const child = await startTemporalFrontend({
    name: 'the Temporal dev server',
    executable,
    args,
    address,
    logPath,
  });
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address });
  const closeConnections = env.teardown.bind(env);
  // An environment made for an existing server closes its connections only: this one owns it.
  env.teardown = async () => {
    await closeConnections();
    await stopProcess(child);
  };
  return env;
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

import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';

/** The throttle and permit-release workers poll activities only, by design. */
const expectedWarnings = new Set(['No workflows registered, not polling for workflow tasks']);

/**
 * The SDK runtime of a process, installed once before any connection. Shutdown signals are ours
 * (see RelayerWorker.shutdown), so the SDK must not stop every worker at once on SIGTERM.
 */
export function installRuntime(level: LogLevel = 'INFO', temporalMetricsPort?: number): void {
  const console = new DefaultLogger(level);
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      if (!expectedWarnings.has(entry.message)) console.log(entry.level, entry.message, entry.meta);
    }),
    telemetryOptions: {
      logging: { filter: { core: level, other: level } },
      // The SDK's own worker metrics (task slots, poll latencies, schedule-to-start…).
      ...(temporalMetricsPort !== undefined && {
        metrics: { prometheus: { bindAddress: `0.0.0.0:${temporalMetricsPort}` } },
      }),
    },
    shutdownSignals: [],
  });
}

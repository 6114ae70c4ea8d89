import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { log, setLogLevel, type LogLevelName } from '../domain/log';

/** The throttle and permit-release workers poll activities only, by design. */
const expectedWarnings = new Set(['No workflows registered, not polling for workflow tasks']);

const levelNames: Record<LogLevel, LogLevelName> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The SDK runtime of a process, installed once before any connection. Its log entries become
 * the process's JSON lines (domain/log.ts): an error in one line as `err` (type, message, stack),
 * the step's trace in `trace_id` when traces are on. Shutdown signals are ours (see
 * RelayerWorker.shutdown), so the SDK must not stop every worker at once on SIGTERM.
 */
export function installRuntime(level: LogLevel = 'INFO', temporalMetricsPort?: number): void {
  setLogLevel(levelNames[level]);
  Runtime.install({
    logger: new DefaultLogger(level, ({ level: entryLevel, message, meta }) => {
      if (expectedWarnings.has(message)) return;
      const { error, ...fields } = meta ?? {};
      log[levelNames[entryLevel]](
        { ...fields, ...(error !== undefined && { err: error }) },
        message,
      );
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

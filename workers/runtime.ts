import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';

/**
 * The SDK runtime of a process, installed once before any connection. Shutdown signals are ours
 * (see RelayerWorker.shutdown), so the SDK must not stop every worker at once on SIGTERM.
 */
export function installRuntime(level: LogLevel = 'INFO'): void {
  Runtime.install({
    logger: new DefaultLogger(level),
    telemetryOptions: { logging: { filter: { core: level, other: level } } },
    shutdownSignals: [],
  });
}

import { loadConfig } from './config/load';
import { type Role } from './config/role';
import { startRelayerProcess } from './relayer-process';
import { installRuntime } from './runtime';
import { lifecycleLog, log } from '../domain/log';

/**
 * Runs a relayer process with `roles` from the environment until SIGTERM or SIGINT, which drain
 * it (see RelayerWorker.shutdown); a second signal changes nothing, because the drain is what
 * keeps in-flight sends safe.
 */
export async function runProcess(roles: readonly Role[]): Promise<void> {
  const config = loadConfig(process.env, roles);
  installRuntime(config.logLevel, config.temporalMetricsPort);
  const relayer = await startRelayerProcess(config, roles);
  const name = `${roles.join('+')} ${relayer.processId}`;
  const stats = relayer.worker?.stats;
  // A rejection nobody handles is a bug; it is counted and logged rather than killing the sends
  // in flight on the other slots.
  process.on('unhandledRejection', (reason) => {
    stats?.recordUnhandled();
    log.error({ err: reason }, `${name}: panic: unhandled rejection`);
  });
  const quota = config.redisUrl ? 'shared on Redis' : 'per process';
  const parts = [
    ...(relayer.worker
      ? [
          `queue ${config.taskQueue}, pool ${config.poolWidth}`,
          `quota ${config.maxInFlight} in flight and ${config.perSecond}/s burst ${config.burst} (${quota})`,
          `drain ${config.drainTimeoutMs} ms`,
          relayer.release ?? 'unversioned',
        ]
      : []),
    ...(config.metricsPort === undefined || !relayer.worker
      ? []
      : [`metrics :${config.metricsPort}/metrics`]),
    ...(relayer.apiUrl === undefined ? [] : [`API ${relayer.apiUrl}`]),
    ...(config.temporalMetricsPort === undefined
      ? []
      : [`SDK metrics :${config.temporalMetricsPort}/metrics`]),
    // Last: the line's start is what supervisors wait for (`worker …: queue`, `api …: API`).
    `Temporal ${config.temporal.described}`,
  ];
  lifecycleLog.info(`${name}: ${parts.join(', ')}`);
  let stopping: Promise<void> | undefined;
  const stop = (signal: string) => {
    if (stopping) return;
    lifecycleLog.info(
      relayer.worker
        ? `${name}: ${signal}: stop taking work, let in-flight steps finish (up to ${config.drainTimeoutMs} ms)`
        : `${name}: ${signal}: stop taking requests`,
    );
    stopping = relayer.stop();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await relayer.done;
  await stopping;
  if (stats) {
    lifecycleLog.info(`${name}: pool stopped: ${stats.summary()}`);
    for (const line of relayer.rpcBudgetTallies()) lifecycleLog.info(`${name}: ${line}`);
  }
  // Everything that matters is closed; an abandoned RPC call must not keep the process around
  // until its own timeout.
  process.exit(0);
}

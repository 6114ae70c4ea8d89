import { loadConfig } from './config';
import { exitOnError } from './exit-on-error';
import { startRelayerProcess } from './relayer-process';
import { installRuntime } from './runtime';

/**
 * A worker process: `npm run worker`. SIGTERM or SIGINT drains it (see RelayerWorker.shutdown);
 * a second signal changes nothing, because the drain is what keeps in-flight sends safe.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  installRuntime(config.logLevel, config.temporalMetricsPort);
  const relayer = await startRelayerProcess(config);
  const { stats } = relayer.worker;
  const name = `worker ${relayer.processId}`;
  // A rejection nobody handles is a bug; it is counted and logged rather than killing the sends
  // in flight on the other slots.
  process.on('unhandledRejection', (reason) => {
    stats.recordUnhandled();
    console.error(`${name}: panic: unhandled rejection`, reason);
  });
  const quota = config.redisUrl ? 'shared on Redis' : 'per process';
  console.log(
    `${name}: queue ${config.taskQueue}, pool ${config.poolWidth}, ` +
      `quota ${config.maxInFlight} in flight and ${config.perSecond}/s burst ${config.burst} (${quota}), ` +
      `drain ${config.drainTimeoutMs} ms` +
      (config.metricsPort === undefined ? '' : `, metrics :${config.metricsPort}/metrics`) +
      (relayer.apiUrl === undefined ? '' : `, API ${relayer.apiUrl}`) +
      (config.temporalMetricsPort === undefined
        ? ''
        : `, SDK metrics :${config.temporalMetricsPort}/metrics`),
  );
  let stopping: Promise<void> | undefined;
  const stop = (signal: string) => {
    if (stopping) return;
    console.log(
      `${name}: ${signal}: stop taking work, let in-flight steps finish (up to ${config.drainTimeoutMs} ms)`,
    );
    stopping = relayer.stop();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await relayer.done;
  await stopping;
  console.log(`${name}: pool stopped: ${stats.summary()}`);
  // Everything that matters is closed; an abandoned RPC call must not keep the process around
  // until its own timeout.
  process.exit(0);
}

main().catch(exitOnError);

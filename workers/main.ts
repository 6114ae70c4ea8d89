import { installRuntime } from './runtime';
import { loadConfig } from './config';
import { exitOnError } from './exit-on-error';
import { startRelayerProcess } from './relayer-process';

/**
 * A worker process: `npm run worker`. SIGTERM or SIGINT drains it (see RelayerWorker.shutdown);
 * a second signal is ignored, because the drain is what keeps in-flight sends safe.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  // We order the shutdown ourselves instead of letting the SDK stop every worker at once.
  installRuntime();
  const relayer = await startRelayerProcess(config);
  console.log(
    `worker ${relayer.processId}: queue ${config.taskQueue}, pool ${config.poolWidth}, ` +
      `${config.maxInFlight} in flight, ${config.perSecond}/s (burst ${config.burst}), ` +
      `drain ${config.drainTimeoutMs} ms`,
  );
  let stopping: Promise<void> | undefined;
  const stop = (signal: string) => {
    console.log(
      `worker ${relayer.processId}: ${signal}: draining (up to ${config.drainTimeoutMs} ms)`,
    );
    stopping ??= relayer.stop();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await relayer.done;
  await stopping;
  console.log(`worker ${relayer.processId}: stopped`);
}

main().catch(exitOnError);

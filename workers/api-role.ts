import { buildApi } from '../api/server';
import { admissionLimits, intentTimings, webhookSettings } from './process-settings';
import type { SharedParts } from './process-parts';

/** The HTTP API, on the process's database, chains (for review checks), client and metrics. */
export async function startApiRole(
  { config, metrics, database, chains, client, redis, tracing }: SharedParts,
  { eagerStart }: { eagerStart: boolean },
) {
  const api = await buildApi({
    eagerStart,
    database,
    client,
    chains,
    taskQueue: config.taskQueue,
    admission: admissionLimits(config),
    registry: metrics,
    lowBalanceWei: config.lowBalance,
    webhooks: webhookSettings(config),
    timings: intentTimings(config),
    requestLimits: {
      perKeyPerMinute: config.apiRequestsPerKeyPerMinute,
      perIpPerMinute: config.apiRequestsPerIpPerMinute,
      ...(redis && { redis }),
    },
    traced: tracing !== undefined,
    trustProxy: config.trustProxy,
  });
  // No port given (tests, in one process with the workers): any free one.
  const url = await api.app.listen({ port: config.apiPort ?? 0, host: config.apiHost });
  return {
    url,
    startClosing: api.startClosing,
    close: () => api.app.close(),
  };
}

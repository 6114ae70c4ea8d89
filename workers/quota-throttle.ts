import { quotaLimiterId, Throttle } from '../throttle/throttle';
import type { RelayerConfig } from './config/load';

/** The Bottleneck quota as configured: in this process, or shared through REDIS_URL. */
export const startQuotaThrottle = (config: RelayerConfig): Promise<Throttle> =>
  Throttle.start(
    // A quarter of the pool's local-activity slots, so the permits' releases always find one.
    { ...config, inStepWaits: Math.floor(config.poolWidth / 4) },
    config.redisUrl === undefined
      ? undefined
      : {
          redisUrl: config.redisUrl,
          redisTlsCa: config.redisTlsCa,
          // One quota for every chain of the process (EXTRA_CHAINS included), named after the
          // first.
          limiterId: quotaLimiterId(config.taskQueue, config.chainId),
        },
  );

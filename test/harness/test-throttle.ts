import { Throttle } from '../../throttle/throttle';

/** An in-process quota roomy enough that it never shapes a test that runs activities directly. */
export const startTestThrottle = (): Promise<Throttle> =>
  Throttle.start({
    maxInFlight: 10,
    perSecond: 100,
    burst: 100,
    maxWaitMs: 1000,
    permitTtlMs: 10_000,
  });

import type { ActivityDependencies } from './dependencies';

export interface ReleaseThrottleParameters {
  permitId: string;
}

/**
 * Returns a permit to the process that holds it (this activity is routed to that process's own
 * task queue). If the holder died, nobody runs this and the permit's expiration reclaims it.
 */
export const releaseThrottle =
  ({ throttle }: ActivityDependencies) =>
  async ({ permitId }: ReleaseThrottleParameters): Promise<boolean> =>
    throttle.release(permitId);

import { cancellationSignal } from '@temporalio/activity';
import type { ActivityDependencies } from './dependencies';
import {
  linePlaceOf,
  pausedRefusal,
  permitIdOfThisAttempt,
  type AcquireThrottleParameters,
  type AcquireThrottleResult,
} from './acquire-throttle';

/**
 * Takes an RPC permit before the intent is touched, as a local activity in the workflow's own task:
 * no task-queue round trip, and no wait in line — without room now, the intent is given its slot in
 * the line (kept by intent id, so a re-run after a crash gets the same one) and the workflow waits
 * on a timer until then with nothing written, and takes its permit at that time. The permit is a
 * Bottleneck job in this process's memory; the grant names this process's release queue, for a
 * release that cannot be made here (the workflow moved to another process meanwhile).
 */
export const tryAcquirePermit =
  (deps: ActivityDependencies) =>
  async ({ intentId, priority }: AcquireThrottleParameters): Promise<AcquireThrottleResult> => {
    const { throttle, permitReleaseQueue } = deps;
    // Before the line: a paused intent takes no slot in it.
    const paused = await pausedRefusal(deps, intentId);
    if (paused) return paused;
    const permitId = permitIdOfThisAttempt(intentId);
    const place = linePlaceOf(priority);
    const grant = await throttle.tryAcquire(permitId, intentId, place, cancellationSignal());
    return grant.granted ? { ...grant, releaseQueue: permitReleaseQueue } : grant;
  };

import { cancellationSignal } from '@temporalio/activity';
import type { ActivityDependencies } from './dependencies';
import {
  permitIdOfThisAttempt,
  type AcquireThrottleParameters,
  type AcquireThrottleResult,
} from './acquire-throttle';

/**
 * A slot this close is waited for inside the step rather than on a workflow timer, which costs a
 * workflow task and five history events: at most a second, and a third of the workflow task's
 * ten-second timeout, so the task never needs a heartbeat; the wait holds a local-activity slot
 * of the pool (POOL_WIDTH).
 */
export const slotWaitInStepMs = 1000;

/**
 * Takes an RPC permit before the intent is touched, as a local activity in the workflow's own
 * task: no task-queue round trip, and no wait in line — without room now, the intent is given its
 * slot in the line (kept by intent id, so a re-run after a crash gets the same one) and the
 * workflow waits on a timer until then with nothing written (a slot within slotWaitInStepMs is
 * waited for here instead), and takes its permit at that time. The permit is a Bottleneck job in this
 * process's memory; the grant names this process's release queue, for a release that cannot be
 * made here (the workflow moved to another process meanwhile).
 */
export const tryAcquirePermit =
  ({ throttle, permitReleaseQueue }: ActivityDependencies) =>
  async ({ intentId }: AcquireThrottleParameters): Promise<AcquireThrottleResult> => {
    const grant = await throttle.tryAcquire(permitIdOfThisAttempt(intentId), intentId, {
      waitUpToMs: slotWaitInStepMs,
      signal: cancellationSignal(),
    });
    return grant.granted ? { ...grant, releaseQueue: permitReleaseQueue } : grant;
  };

import { activityInfo, cancellationSignal } from '@temporalio/activity';
import type { PermitGrant } from '../throttle/throttle';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';

export interface AcquireThrottleParameters {
  intentId: string;
}

/** A grant names the queue of the process holding the permit: its release goes there. */
export type AcquireThrottleResult =
  | (Extract<PermitGrant, { granted: true }> & { releaseQueue: string })
  | Extract<PermitGrant, { granted: false }>;

/** One permit per acquisition attempt, named after it (the limiter's job id). */
export const permitIdOfThisAttempt = (intentId: string): string => {
  const { activityId, attempt, workflowExecution } = activityInfo();
  return `${intentId}/${workflowExecution?.runId}/${activityId}/${attempt}`;
};

/**
 * Takes an RPC permit before the intent is touched, waiting in line for it: the shape of
 * workflows started before `tryAcquirePermit` (and of QUOTA_MODE=task-queue, where the server
 * paces these activities). It runs on the throttle task queue, whose wide pool is only for
 * waiting, so waiting never takes a slot from the steps that do the work. A refusal leaves the
 * intent exactly as it was; the workflow waits on a timer and asks again. It heartbeats while it
 * waits, so a waiter whose process died is noticed in seconds.
 */
export const acquireThrottle =
  ({ throttle, permitReleaseQueue }: ActivityDependencies) =>
  async ({ intentId }: AcquireThrottleParameters): Promise<AcquireThrottleResult> => {
    const permitId = permitIdOfThisAttempt(intentId);
    const grant = await whileHeartbeating(() =>
      throttle.acquire(permitId, cancellationSignal(), intentId),
    );
    return grant.granted ? { ...grant, releaseQueue: permitReleaseQueue } : grant;
  };

import { activityInfo, cancellationSignal } from '@temporalio/activity';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';

export interface AcquireThrottleParameters {
  intentId: string;
}

export type AcquireThrottleResult =
  | { granted: true; permitId: string; releaseQueue: string; waitedMs: number }
  | { granted: false; retryAfterMs: number; reason: 'busy' | 'timeout' | 'closed' };

/**
 * Takes an RPC permit before the intent is touched. It runs on the throttle task queue, whose wide
 * pool is only for waiting, so waiting never takes a slot from the steps that do the work. A
 * refusal leaves the intent exactly as it was; the workflow waits on a timer and asks again.
 * It heartbeats while it waits, so a waiter whose process died is noticed in seconds.
 */
export const acquireThrottle =
  ({ throttle, permitReleaseQueue }: ActivityDependencies) =>
  async ({ intentId }: AcquireThrottleParameters): Promise<AcquireThrottleResult> => {
    const { activityId, attempt, workflowExecution } = activityInfo();
    const permitId = `${intentId}/${workflowExecution?.runId}/${activityId}/${attempt}`;
    const grant = await whileHeartbeating(() => throttle.acquire(permitId, cancellationSignal()));
    return grant.granted ? { ...grant, releaseQueue: permitReleaseQueue } : grant;
  };

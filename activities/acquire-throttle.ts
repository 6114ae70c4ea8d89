import { activityInfo, cancellationSignal } from '@temporalio/activity';
import type { Priority } from '@temporalio/common';
import { unplaced, type LinePlace } from '../throttle/line-places';
import type { PermitGrant } from '../throttle/permit-grant';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';
import { pauseOfIntent } from '../operations/pause-watch';

export interface AcquireThrottleParameters {
  intentId: string;
  /** The workflow's own (its start's, or its batch's): the line orders its slots by it. */
  priority?: Priority;
}

/**
 * Who the intent is to the permit line: Temporal's priority key, fairness key and weight. A field
 * the workflow was started without reads as 0 or "" (protobuf's defaults): the default, then.
 */
export const linePlaceOf = (priority: Priority | undefined): LinePlace => ({
  rank: priority?.priorityKey || unplaced.rank,
  tenant: priority?.fairnessKey || unplaced.tenant,
  weight: priority?.fairnessWeight || unplaced.weight,
});

/**
 * A grant names the queue of the process holding the permit: its release goes there. `paused`:
 * an operator's pause is over the intent; the workflow waits for its resume signal (or
 * `retryAfterMs`) holding nothing, and asks again.
 */
export type AcquireThrottleResult =
  | (Extract<PermitGrant, { granted: true }> & { releaseQueue: string })
  | Extract<PermitGrant, { granted: false }>
  | { granted: false; reason: 'paused'; retryAfterMs: number; pauseId: string };

/** How long a paused intent waits before it asks again, unless its resume signal comes first. */
export const pausedRecheckMs = 5 * 60_000;

/** The refusal of an intent an operator's pause is over; undefined when none is. */
export async function pausedRefusal(
  { db, pauses }: ActivityDependencies,
  intentId: string,
): Promise<AcquireThrottleResult | undefined> {
  const pause = await pauseOfIntent(db, pauses, intentId);
  return (
    pause && { granted: false, reason: 'paused', retryAfterMs: pausedRecheckMs, pauseId: pause.id }
  );
}

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
  (deps: ActivityDependencies) =>
  async ({ intentId, priority }: AcquireThrottleParameters): Promise<AcquireThrottleResult> => {
    const { throttle, permitReleaseQueue } = deps;
    const paused = await pausedRefusal(deps, intentId);
    if (paused) return paused;
    const permitId = permitIdOfThisAttempt(intentId);
    const place = linePlaceOf(priority);
    const grant = await whileHeartbeating(() =>
      throttle.acquire(permitId, cancellationSignal(), intentId, place),
    );
    return grant.granted ? { ...grant, releaseQueue: permitReleaseQueue } : grant;
  };

import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RelayerActivities } from '../../activities';
import type { AcquireThrottleResult } from '../../activities/acquire-throttle';
import { throttleTaskQueue } from '../../domain/task-queues';
import { releaseStep, throttleStep } from '../activity-profiles';
import type { PaymentIntentProgress } from './messages';
import { sleepWithin } from './deadlines';
import type { PauseWaits } from './pause-waits';
import { inTask } from './steps';

/** An RPC permit the intent holds: its send may go. */
export type Permit = Extract<AcquireThrottleResult, { granted: true }>;

/**
 * Asks for a permit inside the workflow's task until one is granted; each refusal is a workflow
 * timer, nothing written. Under QUOTA_MODE=task-queue the permits come from the server's paced
 * queue instead.
 */
export async function takePermitInTask(
  intentId: string,
  progress: PaymentIntentProgress,
  waits: PermitWaits,
): Promise<Permit> {
  for (;;) {
    const since = waits.pauses.seen();
    const result = await inTask.tryAcquirePermit({ intentId, priority: workflowInfo().priority });
    if (result.granted) return result;
    if (result.reason === 'server-paced') return waitForPermit(intentId, progress, waits);
    await waitAfterRefusal(result, since, progress, waits);
  }
}

/** What a permit's wait answers to besides the throttle: the intent's deadline, its pauses. */
export interface PermitWaits {
  validUntil?: number;
  pauses: PauseWaits;
}

/** A paused intent waits for its resume; a throttled one for its slot. Past validUntil, ends. */
async function waitAfterRefusal(
  refusal: Exclude<AcquireThrottleResult, { granted: true }>,
  since: number,
  progress: PaymentIntentProgress,
  { validUntil, pauses }: PermitWaits,
): Promise<void> {
  if (refusal.reason === 'paused') {
    await pauses.untilResumed(since, refusal.retryAfterMs, validUntil);
    return;
  }
  progress.permitRefusals++;
  await sleepWithin(refusal.retryAfterMs, validUntil);
}

/**
 * Gives the permit back from inside the workflow's task if this process holds it (the workflow
 * stayed in the cache of the worker that took it); otherwise on the holder's own queue; a holder
 * that is gone is covered by the permit's expiration. Never throws.
 */
export async function releasePermitInTask(permit: Permit): Promise<unknown> {
  const released = await inTask.releaseThrottle({ permitId: permit.permitId }).catch(() => false);
  return released || releasePermit(permit);
}

/** A permit from the process's throttle queue (runs from before local steps, or server pacing). */
export async function waitForPermit(
  intentId: string,
  progress: PaymentIntentProgress,
  waits: PermitWaits,
): Promise<Permit> {
  const { acquireThrottle } = proxyActivities<RelayerActivities>({
    ...throttleStep,
    taskQueue: throttleTaskQueue(workflowInfo().taskQueue),
  });
  for (;;) {
    const since = waits.pauses.seen();
    const result = await acquireThrottle({ intentId, priority: workflowInfo().priority });
    if (result.granted) return result;
    await waitAfterRefusal(result, since, progress, waits);
  }
}

/** Never throws: a release that cannot be delivered is covered by the permit's expiration. */
export function releasePermit(permit: Permit): Promise<unknown> {
  const { releaseThrottle } = proxyActivities<RelayerActivities>({
    ...releaseStep,
    taskQueue: permit.releaseQueue,
  });
  return releaseThrottle({ permitId: permit.permitId }).catch(() => false);
}

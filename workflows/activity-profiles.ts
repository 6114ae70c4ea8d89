import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { nonRetryableErrorTypes } from '../domain/error-catalogue';
import { defaultSendWindowMs } from '../domain/intent-timings';

/** Temporal's retry policy is the only retry layer: transports and steps never loop themselves. */
const retryUntilDone = {
  initialInterval: '500ms',
  backoffCoefficient: 2,
  maximumInterval: '30s',
  nonRetryableErrorTypes,
} as const;

/** Database-only steps: milliseconds each, so a short timeout notices a dead worker quickly. */
export const dbStep: ActivityOptions = {
  startToCloseTimeout: '10s',
  retry: retryUntilDone,
};

/**
 * The database steps as local activities, run inside the workflow's own task by the worker that
 * runs it: no task-queue round trip, one marker in the history each. Same compare-and-set steps,
 * same retries.
 */
export const localDbStep: LocalActivityOptions = {
  startToCloseTimeout: '10s',
  retry: retryUntilDone,
};

/**
 * Taking a permit, inside the workflow's task: a try that answers at once (granted, or when to ask
 * again), so a few quick retries of an error are all it needs; a refusal is a workflow timer.
 */
export const localPermitStep: LocalActivityOptions = {
  startToCloseTimeout: '5s',
  retry: { ...retryUntilDone, maximumInterval: '5s', maximumAttempts: 5 },
};

/**
 * Returning a permit from inside the workflow's task: answers false at once where the permit is
 * not held (the workflow moved to another process), and the release goes to the holder's queue.
 */
export const localReleaseStep: LocalActivityOptions = {
  startToCloseTimeout: '5s',
  retry: { maximumAttempts: 1 },
};

/**
 * The send. Retried with the same signed bytes; after the intent's send window (five minutes by
 * default: the seed's review rule) without the node taking them, the workflow stops and asks a
 * person instead.
 */
export const rpcStep: ActivityOptions = {
  startToCloseTimeout: '30s',
  heartbeatTimeout: '10s',
  scheduleToCloseTimeout: defaultSendWindowMs,
  retry: retryUntilDone,
};

/** One look at the receipt; the waiting between looks is a workflow timer. */
export const confirmStep: ActivityOptions = {
  startToCloseTimeout: '30s',
  heartbeatTimeout: '10s',
  retry: retryUntilDone,
};

/**
 * Applying an operator's review decision: a few chain reads and one database transaction, while
 * the operator's request waits for the answer; a refusal is final and goes back to them. It
 * heartbeats, so a step whose worker died is tried again in seconds, not after the whole timeout
 * the operator would otherwise wait out.
 */
export const reviewStep: ActivityOptions = {
  startToCloseTimeout: '30s',
  heartbeatTimeout: '10s',
  retry: { ...retryUntilDone, maximumAttempts: 3 },
};

/**
 * The orphan sweep: a database read and one workflow start per orphan (up to a thousand). It
 * heartbeats, so a sweep whose worker died is noticed in seconds: until then the schedule skips
 * its next runs. Tried once more at most; the schedule's next run is the real retry.
 */
export const sweepStep: ActivityOptions = {
  startToCloseTimeout: '1m',
  heartbeatTimeout: '10s',
  retry: { ...retryUntilDone, maximumAttempts: 2 },
};

/**
 * Admitting a scheduled occurrence: database work, retried (a full tenant or backlog is a
 * retryable refusal) until it is admitted or refused for good.
 */
export const admissionStep: ActivityOptions = {
  startToCloseTimeout: '10s',
  retry: retryUntilDone,
};

/**
 * Waiting for a permit, on the throttle queue. The wait inside is bounded by the throttle's
 * maxWait (validated to be shorter than this timeout).
 */
export const throttleStep: ActivityOptions = {
  startToCloseTimeout: '2m',
  heartbeatTimeout: '10s',
  retry: { ...retryUntilDone, maximumInterval: '10s' },
};

/**
 * Returning a permit to the process that holds it. If that process is gone nobody picks the task
 * up; the permit's own expiration reclaims the capacity, so one quick try is enough.
 */
export const releaseStep: ActivityOptions = {
  scheduleToStartTimeout: '10s',
  startToCloseTimeout: '5s',
  retry: { maximumAttempts: 1 },
};

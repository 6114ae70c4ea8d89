import { Context, heartbeat } from '@temporalio/activity';

const heartbeatEveryMs = 2000;

/**
 * Runs `work` while heartbeating, so that Temporal notices within the step's heartbeat timeout
 * when the process running it has died, instead of after its whole start-to-close timeout.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>): Promise<T> {
  heartbeat();
  const beat = setInterval(() => heartbeat(), heartbeatEveryMs);
  try {
    return await work();
  } finally {
    clearInterval(beat);
  }
}

/**
 * Awaits `work` unless the activity is cancelled first (the drain timeout, a lost heartbeat): the
 * activity then gives up at once and Temporal retries it. Only for work whose retry is safe
 * whatever the abandoned attempt did, like re-sending bytes that were already persisted.
 */
export function unlessCancelled<T>(work: Promise<T>): Promise<T> {
  return Promise.race([work, Context.current().cancelled]);
}

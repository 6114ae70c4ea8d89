import { Context, heartbeat } from '@temporalio/activity';

const heartbeatEveryMs = 2000;

/**
 * Runs `work` while heartbeating, so that Temporal notices within the step's heartbeat timeout
 * when the process running it has died, instead of after its whole start-to-close timeout. The
 * first beat comes after `heartbeatEveryMs`, not at the start: most steps end within
 * milliseconds, and each beat is a call the server persists (the SDK sends the first at once).
 */
export async function whileHeartbeating<T>(work: () => Promise<T>): Promise<T> {
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

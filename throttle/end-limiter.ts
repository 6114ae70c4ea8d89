import type Bottleneck from 'bottleneck';

/**
 * Where Bottleneck 2.19.5 keeps a limiter's timers: the heartbeat (LocalDatastore and
 * RedisDatastore) and, clustered, a second's wait before it blacklists a client that was told to
 * take capacity and did not.
 */
interface WithTimers {
  _store?: {
    heartbeat?: ReturnType<typeof setInterval>;
    capacityPriorityCounters?: Record<string, ReturnType<typeof setTimeout>>;
  };
}

/**
 * Ends a limiter for good: its jobs dropped and its timers stopped. Bottleneck's `stop()` only
 * drops jobs: the heartbeat goes on every beat (down to 10 ms here) for the life of the process,
 * and clustered each beat is a Redis call — after a Redis restart the replaced limiter kept
 * calling a Redis that no longer knew it, and once the connection closed it logged an error per
 * beat. `disconnect()` would end the beat too, but on a shared Redis connection it also takes
 * the limiter id's channel away from the limiter that replaced it (same id), so the timer is
 * cleared here directly (Bottleneck is pinned; a test fails if the beat survives).
 */
export async function endLimiter(limiter: Bottleneck): Promise<void> {
  const store = (limiter as unknown as WithTimers)._store;
  clearInterval(store?.heartbeat);
  for (const timer of Object.values(store?.capacityPriorityCounters ?? {})) clearTimeout(timer);
  await limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
}

import Bottleneck from 'bottleneck';

export interface ThrottleSettings {
  /** Sends in flight at once, across every activity slot this limiter serves. */
  maxInFlight: number;
  /** Token bucket: sustained sends per second … */
  perSecond: number;
  /** … and how many may start back to back after a quiet period. */
  burst: number;
  /** Longest one acquisition waits before the intent steps back, untouched, and retries later. */
  maxWaitMs: number;
  /** A permit not released in this time is reclaimed: its holder is presumed dead. */
  permitTtlMs: number;
}

export type PermitGrant =
  | { granted: true; permitId: string; waitedMs: number }
  | { granted: false; reason: 'busy' | 'timeout' | 'closed'; retryAfterMs: number };

/**
 * The RPC quota: Bottleneck's `maxConcurrent` is the in-flight semaphore and its reservoir, refilled
 * one token every 1/perSecond up to `burst`, is the token bucket. A permit is a Bottleneck job that
 * keeps running until `release`, so it holds its in-flight slot between the activities of one
 * intent; `expiration` reclaims it if the release never comes.
 */
export class Throttle {
  private readonly limiter: Bottleneck;
  private readonly held = new Map<string, () => void>();

  constructor(private readonly settings: ThrottleSettings) {
    this.limiter = new Bottleneck({
      maxConcurrent: settings.maxInFlight,
      reservoir: settings.burst,
      reservoirIncreaseAmount: 1,
      reservoirIncreaseInterval: Math.round(1000 / settings.perSecond),
      reservoirIncreaseMaximum: settings.burst,
      // Waiters beyond what the bucket can serve within maxWaitMs (with a margin for timer
      // slack) are turned away at once: they would time out anyway, and a timed-out waiter
      // still in the queue would burn a token when its turn came.
      highWater: Math.max(1, Math.floor((0.8 * settings.perSecond * settings.maxWaitMs) / 1000)),
      strategy: Bottleneck.strategy.OVERFLOW,
    });
  }

  /** Waits for a permit; `permitId` must be unique per acquisition. */
  acquire(permitId: string, signal?: AbortSignal): Promise<PermitGrant> {
    const startedAt = Date.now();
    return new Promise((resolve) => {
      let settled = false;
      const settle = (grant: PermitGrant) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        resolve(grant);
      };
      const refuse = (reason: 'busy' | 'timeout' | 'closed') =>
        settle({ granted: false, reason, retryAfterMs: this.retryAfterMs() });
      const onAbort = () => refuse('closed');
      const deadline = setTimeout(() => refuse('timeout'), this.settings.maxWaitMs);
      signal?.addEventListener('abort', onAbort);

      this.limiter
        .schedule({ id: permitId, expiration: this.settings.permitTtlMs }, () => {
          // The waiter gave up before its turn came: hand the slot straight back.
          if (settled) return Promise.resolve();
          return new Promise<void>((release) => {
            this.held.set(permitId, release);
            settle({ granted: true, permitId, waitedMs: Date.now() - startedAt });
          });
        })
        .catch(() => refuse(this.closed ? 'closed' : 'busy'))
        .finally(() => this.held.delete(permitId));
    });
  }

  /** Gives the permit back; false when it was unknown here or already reclaimed. */
  release(permitId: string): boolean {
    const release = this.held.get(permitId);
    if (!release) return false;
    this.held.delete(permitId);
    release();
    return true;
  }

  get inFlight(): number {
    return this.held.size;
  }

  private closed = false;

  /** For a process going away: turns every waiter away (they retry elsewhere), drops permits. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // stop() resolves once running jobs end, and a held permit only ends when released.
    const stopped = this.limiter.stop({ dropWaitingJobs: true });
    for (const permitId of [...this.held.keys()]) this.release(permitId);
    await stopped;
  }

  /** Roughly when the bucket could serve a newcomer, jittered so retries do not arrive together. */
  private retryAfterMs(): number {
    const backlog = this.limiter.queued() + 1;
    const estimate = (backlog / this.settings.perSecond) * 1000;
    const bounded = Math.min(Math.max(estimate, 500), this.settings.maxWaitMs);
    return Math.round(bounded * (0.8 + Math.random() * 0.4));
  }
}

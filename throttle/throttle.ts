import Bottleneck from 'bottleneck';
import Redis from 'ioredis';
import { endLimiter } from './end-limiter';
import { isLostRedisState, refillOf } from './refill';
import { sharedSpendWindow } from './shared-spend-window';
import { localSpendWindow, type SpendWindow } from './spend-window';

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

/** The Redis name of the quota shared by every worker of a task queue for one chain. */
export const quotaLimiterId = (taskQueue: string, chainId: number): string =>
  `${taskQueue}:rpc-quota:${chainId}`;

/** With Redis, every process that uses the same limiter id shares one quota. */
export interface ThrottleCluster {
  redisUrl: string;
  limiterId: string;
}

export type PermitGrant =
  | { granted: true; permitId: string; waitedMs: number }
  | { granted: false; reason: 'busy' | 'timeout' | 'closed'; retryAfterMs: number }
  /** QUOTA_MODE=task-queue: permits come from the server's paced queue, not from here. */
  | { granted: false; reason: 'server-paced'; retryAfterMs: 0 };

/**
 * How long a try may wait for a job that the limiter had just said could run, when another took
 * the slot first: a moment, not a wait in line.
 */
const raceWindowMs = 200;

/**
 * The RPC quota: Bottleneck's `maxConcurrent` is the in-flight semaphore and its reservoir, refilled
 * one token every 1/perSecond up to `burst`, is the token bucket. A permit is a Bottleneck job that
 * keeps running until `release`, so it holds its in-flight slot between the activities of one
 * intent; `expiration` reclaims it if the release never comes (in Redis too, when its process died).
 * The same rate is applied once more right before each send, by a spend window (see reserveSend).
 */
export class Throttle {
  private limiter: Bottleneck;
  private readonly connection?: Bottleneck.IORedisConnection;
  private readonly sendWindow: SpendWindow;
  private readonly held = new Map<string, { release: () => void; since: number }>();
  private closed = false;
  /** When the last refused try was told to come back (see nextTurnMs). */
  private turnsTail = 0;
  /** How long permits are held, smoothed: how fast a full in-flight bound frees a slot. */
  private holdMs = 0;
  /** Permits whose release never came here, taken back by their expiration. */
  private reclaimed = 0;

  private constructor(
    private readonly settings: ThrottleSettings,
    private readonly cluster?: ThrottleCluster,
  ) {
    if (cluster) {
      const client = new Redis(cluster.redisUrl, { maxRetriesPerRequest: 1 });
      // Failed commands reach the acquirer as a refusal; the client itself keeps reconnecting.
      client.on('error', (error: Error) => console.error(`throttle: redis: ${error.message}`));
      this.connection = new Bottleneck.IORedisConnection({ client });
      this.sendWindow = sharedSpendWindow(client, `${cluster.limiterId}:send-window`, settings);
    } else {
      this.sendWindow = localSpendWindow(settings);
    }
    this.limiter = this.createLimiter();
  }

  /** Resolves once the limiter (and, clustered, its Redis state) is ready. */
  static async start(settings: ThrottleSettings, cluster?: ThrottleCluster): Promise<Throttle> {
    const throttle = new Throttle(settings, cluster);
    await throttle.ready();
    return throttle;
  }

  private createLimiter(): Bottleneck {
    const { perSecond, burst, maxWaitMs } = this.settings;
    const options: Bottleneck.ConstructorOptions = {
      ...quotaOf(this.settings, this.cluster !== undefined),
      reservoir: burst,
      // Waiters beyond what the bucket can serve within maxWaitMs (with a margin for timer
      // slack) are turned away at once: they would time out anyway, and a timed-out waiter
      // still in the queue would burn a token when its turn came.
      highWater: Math.max(1, Math.floor((0.8 * perSecond * maxWaitMs) / 1000)),
      strategy: Bottleneck.strategy.OVERFLOW,
      ...(this.cluster && {
        id: this.cluster.limiterId,
        datastore: 'ioredis',
        connection: this.connection,
        clearDatastore: false,
      }),
    };
    const limiter = new Bottleneck(options);
    limiter.on('error', (error: Error) => {
      // A heartbeat that finds the state gone: no job may come to find it.
      if (isLostRedisState(error)) this.recover(limiter);
      else console.error(`throttle: ${error.message}`);
    });
    return limiter;
  }

  private async ready(): Promise<void> {
    await this.limiter.ready();
    // Redis keeps the settings of whoever created the limiter first: apply ours, so a deploy
    // that changes the quota takes effect (the last process to start wins).
    if (this.cluster) await this.limiter.updateSettings(quotaOf(this.settings, true));
  }

  /**
   * A permit now, or when to ask again — never a wait in line: the caller holds no slot while
   * refused and comes back on a workflow timer at its turn. `permitId` must be unique per
   * acquisition.
   */
  async tryAcquire(permitId: string): Promise<PermitGrant> {
    // The same acquisition again (its answer was lost with a workflow task, and the try re-ran
    // on replay): the permit it already holds, not a second one left to expire.
    if (this.held.has(permitId)) return { granted: true, permitId, waitedMs: 0 };
    if (this.closed) return { granted: false, reason: 'closed', retryAfterMs: this.nextTurnMs() };
    const limiter = this.limiter;
    const free = await limiter.check().catch((error: unknown) => {
      if (isLostRedisState(error)) this.recover(limiter);
      return false;
    });
    if (!free) return { granted: false, reason: 'busy', retryAfterMs: this.nextTurnMs() };
    const grant = await this.acquire(permitId, undefined, raceWindowMs);
    // Out of the race window: another took the free slot first, not a wait that ran out.
    return !grant.granted && grant.reason === 'timeout' ? { ...grant, reason: 'busy' } : grant;
  }

  /** Waits for a permit (up to maxWaitMs); `permitId` must be unique per acquisition. */
  acquire(
    permitId: string,
    signal?: AbortSignal,
    maxWaitMs = this.settings.maxWaitMs,
  ): Promise<PermitGrant> {
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
        settle({ granted: false, reason, retryAfterMs: this.nextTurnMs() });
      const onAbort = () => refuse('closed');
      const deadline = setTimeout(() => refuse('timeout'), maxWaitMs);
      signal?.addEventListener('abort', onAbort);

      const limiter = this.limiter;
      limiter
        .schedule({ id: permitId, expiration: this.settings.permitTtlMs }, () => {
          // The waiter gave up before its turn came: hand the slot straight back.
          if (settled) return Promise.resolve();
          return new Promise<void>((release) => {
            this.held.set(permitId, { release, since: Date.now() });
            settle({ granted: true, permitId, waitedMs: Date.now() - startedAt });
          });
        })
        .catch((error: unknown) => {
          // Still held when the job failed: the expiration took it back before any release.
          if (this.held.has(permitId)) this.reclaimed++;
          if (isLostRedisState(error)) this.recover(limiter);
          refuse(this.closed ? 'closed' : 'busy');
        })
        .finally(() => this.held.delete(permitId));
    });
  }

  /** The shared state vanished (see isLostRedisState): a new limiter recreates it. */
  private recover(failed: Bottleneck): void {
    if (this.closed || failed !== this.limiter) return;
    console.error('throttle: the shared quota state vanished from Redis; recreating it');
    this.limiter = this.createLimiter();
    this.ready().catch((error: Error) => console.error(`throttle: ${error.message}`));
    void endLimiter(failed);
  }

  /**
   * Asked right before each send to the node: 0 to go now (counted), else the ms to wait. The
   * permit is taken before any side effect, but a few steps run between the permit and the send,
   * and when workers are busy those steps bunch up (the node saw 7 sends within one second under
   * a 5/s permit quota): deciding at the moment of the send is what holds the bound however late
   * a step runs (reserving future send slots instead was measured to let late sends bunch again).
   */
  reserveSend(): Promise<number> {
    return this.sendWindow.take(1);
  }

  /** Gives the permit back; false when it was unknown here or already reclaimed. */
  release(permitId: string): boolean {
    const permit = this.held.get(permitId);
    if (!permit) return false;
    this.held.delete(permitId);
    this.holdMs =
      this.holdMs === 0
        ? Date.now() - permit.since
        : 0.9 * this.holdMs + 0.1 * (Date.now() - permit.since);
    permit.release();
    return true;
  }

  get inFlight(): number {
    return this.held.size;
  }

  /** Permits this process granted whose release never came, taken back by their expiration. */
  get permitsReclaimed(): number {
    return this.reclaimed;
  }

  /** For a process going away: turns every waiter away (they retry elsewhere), drops permits. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // stop() resolves once running jobs end, and a held permit only ends when released.
    const stopped = endLimiter(this.limiter);
    for (const permitId of [...this.held.keys()]) this.release(permitId);
    await stopped;
    await this.connection?.disconnect();
  }

  /** How often a slot frees: a token, or a permit back when the in-flight bound is what is full. */
  private slotMs(): number {
    const { perSecond, maxInFlight } = this.settings;
    return Math.max(1000 / perSecond, this.holdMs / maxInFlight);
  }

  /**
   * When a refused caller should ask again: refusals are handed turns one free slot apart, in
   * the order refused — a slot frees at the bucket's rate, or, when the in-flight bound is what
   * is full, as often as permits come back (hold time ÷ bound) — so each comes back about when
   * there is room for it. Per process: with several
   * processes sharing a quota, turns come back a little early and some are refused again.
   */
  private nextTurnMs(): number {
    const now = Date.now();
    const interval = this.slotMs();
    this.turnsTail = Math.max(this.turnsTail, now) + interval;
    // Jittered late, by a tenth to a half of a slot: turns keep their order, and a token that
    // waits a moment for its caller is kept in the bucket, while a caller early for its token is
    // refused and goes to the back of the line. (A jitter that was a share of the whole wait let
    // the refused overtake each other and be refused again, over and over.)
    const waitMs = this.turnsTail - now + interval * (0.1 + Math.random() * 0.4);
    return Math.min(Math.max(Math.round(waitMs), minTurnMs), maxTurnMs);
  }
}

/** A turn further out than this is asked again then: the line may have moved meanwhile. */
const maxTurnMs = 5 * 60_000;

/** A refused caller never comes back sooner: each try costs a workflow task. */
const minTurnMs = 50;

/** The settings that make up the quota (the current reservoir is state, not a setting). */
const quotaOf = (
  settings: ThrottleSettings,
  clustered: boolean,
): Bottleneck.ConstructorOptions => ({
  maxConcurrent: settings.maxInFlight,
  ...refillOf(settings, clustered),
});

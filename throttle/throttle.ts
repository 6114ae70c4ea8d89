import Bottleneck from 'bottleneck';
import { redisClient } from './redis-client';
import { endLimiter } from './end-limiter';
import { isLostRedisState } from './lost-redis-state';
import { unplaced, type LinePlace } from './line-places';
import type { PermitGrant } from './permit-grant';
import type { SendTurn } from './permit-source';
import { SendTurns } from './send-turns';
import { localPermitLine, slotDueMs, type PermitLine } from './permit-line';
import { sharedPermitLine } from './shared-permit-line';
import { sharedSpendWindow } from './shared-spend-window';
import { localSpendWindow } from './spend-window';
import { BusyTurns } from './busy-turns';
import { InStepWaits } from './in-step-waits';
import { pause } from './pause';
import { lineRateOf, type ThrottleCluster, type ThrottleSettings } from './settings';
import { log } from '../domain/log';

export { quotaLimiterId, type ThrottleCluster, type ThrottleSettings } from './settings';

/**
 * How long a try at its slot may wait for the in-flight slot the limiter had just said was free
 * (another took it first, or Bottleneck is slow to start the job on a busy process): a moment.
 */
const raceWindowMs = 1000;

/**
 * How often a clustered limiter beats: each beat frees dead holders' permits whose expiration
 * passed (PERMIT_TTL_MS) and tells the waiters, as every permit check and job does first. So a
 * waiter in line sees a dead holder's permit up to a beat after it expired. Bottleneck's own
 * default: a faster beat costs an idle worker CPU (docs/benchmark.md).
 */
export const limiterBeatMs = 5000;

/**
 * The RPC quota: the rate is a line of slots (permit-line.ts: a try gets a permit now or a slot
 * to come back at), the in-flight bound Bottleneck's `maxConcurrent`. A permit is a Bottleneck job
 * that keeps running until `release`, so it holds its in-flight slot between the activities of
 * one intent; `expiration` reclaims it if the release never comes (in Redis too, when its process
 * died). The rate is applied once more right before each send (send-turns.ts).
 */
export class Throttle {
  private limiter: Bottleneck;
  private readonly connection?: Bottleneck.IORedisConnection;
  private readonly line: PermitLine;
  private readonly sendTurns: SendTurns;
  private readonly held = new Map<string, { release: () => void; since: number }>();
  private closed = false;
  private readonly busyTurns: BusyTurns;
  private readonly inStepWaits: InStepWaits;
  /** Permits whose release never came here, taken back by their expiration. */
  private reclaimed = 0;

  private constructor(
    private readonly settings: ThrottleSettings,
    private readonly cluster?: ThrottleCluster,
    now?: () => number,
  ) {
    if (cluster) {
      const client = redisClient({ url: cluster.redisUrl, ca: cluster.redisTlsCa });
      // Failed commands reach the acquirer as a refusal; the client itself keeps reconnecting.
      client.on('error', (error: Error) => log.error(`throttle: redis: ${error.message}`));
      this.connection = new Bottleneck.IORedisConnection({ client });
      this.line = sharedPermitLine(client, `${cluster.limiterId}:line`, lineRateOf(settings));
      this.sendTurns = new SendTurns(
        sharedSpendWindow(client, `${cluster.limiterId}:send-window`, settings),
      );
    } else {
      this.line = localPermitLine(lineRateOf(settings), now);
      this.sendTurns = new SendTurns(localSpendWindow(settings));
    }
    this.limiter = this.createLimiter();
    this.busyTurns = new BusyTurns(settings.maxInFlight);
    this.inStepWaits = new InStepWaits(settings.inStepWaits ?? 0);
  }

  /**
   * Resolves once the limiter (and, clustered, its Redis state) is ready. `now` is the line's
   * clock in process (ms; tests on a time-skipping server read the workflow's time); clustered,
   * the line keeps Redis's.
   */
  static async start(
    settings: ThrottleSettings,
    cluster?: ThrottleCluster,
    now?: () => number,
  ): Promise<Throttle> {
    const throttle = new Throttle(settings, cluster, now);
    await throttle.ready();
    return throttle;
  }

  private createLimiter(): Bottleneck {
    const options: Bottleneck.ConstructorOptions & { heartbeatInterval?: number } = {
      maxConcurrent: this.settings.maxInFlight,
      ...(this.cluster && {
        // The option is real but missing from Bottleneck's types.
        heartbeatInterval: limiterBeatMs,
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
      else log.error(`throttle: ${error.message}`);
    });
    return limiter;
  }

  private async ready(): Promise<void> {
    await this.limiter.ready();
    // Redis keeps the settings of whoever created the limiter first: apply ours, so a deploy
    // that changes the bound takes effect (the last process to start wins).
    if (this.cluster)
      await this.limiter.updateSettings({ maxConcurrent: this.settings.maxInFlight });
  }

  /**
   * A permit now (a near slot waited for here: in-step-waits.ts), or when to ask again — never a
   * wait in line: the caller holds no slot while refused and comes back on a workflow timer.
   * `permitId` is unique per acquisition; `slotKey` (the intent) keeps its slot in the line from
   * try to try, `place` orders it (line-places.ts); `signal` ends a wait.
   */
  async tryAcquire(
    permitId: string,
    slotKey: string = permitId,
    place?: LinePlace,
    signal?: AbortSignal,
  ): Promise<PermitGrant> {
    // The same acquisition again (its answer was lost with a workflow task, and the try re-ran
    // on replay): the permit it already holds, not a second one left to expire.
    if (this.held.has(permitId)) return { granted: true, permitId, waitedMs: 0 };
    let untilSlotMs = await this.untilSlot(slotKey, place);
    if (typeof untilSlotMs !== 'number') return untilSlotMs;
    if (untilSlotMs > slotDueMs && this.inStepWaits.mayWait(untilSlotMs, place)) {
      const waitMs = untilSlotMs;
      if (!(await this.inStepWaits.hold(() => pause(waitMs, signal))))
        return this.refusal('closed');
      // A newcomer that goes before it may have moved the slot back meanwhile.
      untilSlotMs = await this.untilSlot(slotKey, place);
      if (typeof untilSlotMs !== 'number') return untilSlotMs;
    }
    if (untilSlotMs > slotDueMs) {
      return { granted: false, reason: 'reserved', retryAfterMs: untilSlotMs };
    }
    const limiter = this.limiter;
    const free = await limiter.check().catch((error: unknown) => {
      if (isLostRedisState(error)) this.recover(limiter);
      return false;
    });
    if (!free) return this.refusal('busy');
    const grant = await this.takeInFlight(permitId, undefined, raceWindowMs, place);
    if (grant.granted) await this.line.taken(slotKey).catch(() => undefined);
    // Out of the race window: another took the free slot first, not a wait that ran out.
    return !grant.granted && grant.reason === 'timeout' ? { ...grant, reason: 'busy' } : grant;
  }

  /** Waits for a permit (up to maxWaitMs): its slot in the line, then an in-flight slot. */
  async acquire(
    permitId: string,
    signal?: AbortSignal,
    slotKey: string = permitId,
    place?: LinePlace,
  ): Promise<PermitGrant> {
    const startedAt = Date.now();
    const { maxWaitMs } = this.settings;
    // Asked again after each wait: a newcomer that goes before it may have moved the slot back.
    for (;;) {
      const untilSlotMs = await this.untilSlot(slotKey, place);
      if (typeof untilSlotMs !== 'number') return untilSlotMs;
      if (untilSlotMs <= slotDueMs) break;
      // Beyond the wait (a moment kept for the in-flight slot): it comes back on a timer.
      if (untilSlotMs > maxWaitMs - raceWindowMs - (Date.now() - startedAt)) {
        return { granted: false, reason: 'reserved', retryAfterMs: untilSlotMs };
      }
      if (!(await pause(untilSlotMs, signal))) return this.refusal('closed');
    }
    const waitMs = maxWaitMs - (Date.now() - startedAt);
    const grant = await this.takeInFlight(permitId, signal, waitMs, place);
    if (grant.granted) {
      await this.line.taken(slotKey).catch(() => undefined);
      return { ...grant, waitedMs: Date.now() - startedAt };
    }
    return grant;
  }

  /** The ms until `slotKey`'s slot in the line, or the refusal when none can be had now. */
  private async untilSlot(slotKey: string, given?: LinePlace): Promise<number | PermitGrant> {
    if (this.closed) return this.refusal('closed');
    const place = this.settings.lineOrder === 'arrival' ? undefined : given;
    const untilSlotMs = await this.line.reserve(slotKey, place).catch(() => undefined);
    return untilSlotMs ?? this.refusal('busy');
  }

  /** A refusal with the turn to come back at for a free in-flight slot (busy-turns.ts). */
  private refusal(reason: 'busy' | 'timeout' | 'closed'): PermitGrant {
    return { granted: false, reason, retryAfterMs: this.busyTurns.next() };
  }

  /** `slotKey` will not ask again (its intent was closed): its slot goes to the next. */
  cancelSlot(slotKey: string): Promise<void> {
    return this.line.cancel(slotKey);
  }

  /** Waits for an in-flight slot, up to `maxWaitMs`; by priority (the place's rank, 0 first). */
  private takeInFlight(
    permitId: string,
    signal: AbortSignal | undefined,
    maxWaitMs: number,
    place: LinePlace = unplaced,
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
      const refuse = (reason: 'busy' | 'timeout' | 'closed') => settle(this.refusal(reason));
      const onAbort = () => refuse('closed');
      const deadline = setTimeout(() => refuse('timeout'), Math.max(0, maxWaitMs));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort);

      const limiter = this.limiter;
      limiter
        .schedule(
          { id: permitId, expiration: this.settings.permitTtlMs, priority: place.rank },
          () => {
            // The waiter gave up before its turn came: hand the slot straight back.
            if (settled) return Promise.resolve();
            return new Promise<void>((release) => {
              this.held.set(permitId, { release, since: Date.now() });
              settle({ granted: true, permitId, waitedMs: Date.now() - startedAt });
            });
          },
        )
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
    log.error('throttle: the shared quota state vanished from Redis; recreating it');
    this.limiter = this.createLimiter();
    this.ready().catch((error: Error) => log.error(`throttle: ${error.message}`));
    void endLimiter(failed);
  }

  /** Asked right before each send: go now, or wait (send-turns.ts). */
  reserveSend(): Promise<SendTurn> {
    return this.sendTurns.next();
  }

  /** Gives the permit back; false when it was unknown here or already reclaimed. */
  release(permitId: string): boolean {
    const permit = this.held.get(permitId);
    if (!permit) return false;
    this.held.delete(permitId);
    this.busyTurns.held(Date.now() - permit.since);
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
    this.sendTurns.close();
    // stop() resolves once running jobs end, and a held permit only ends when released.
    const stopped = endLimiter(this.limiter);
    for (const permitId of [...this.held.keys()]) this.release(permitId);
    await stopped;
    await this.connection?.disconnect();
  }
}

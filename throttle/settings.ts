import { sustainedPerSecond } from './spend-window';

// The quota's settings, where a shared one lives, and the pace its line of slots keeps.

export interface ThrottleSettings {
  /** Sends in flight at once, across every activity slot this limiter serves. */
  maxInFlight: number;
  /** The provider's send rate: permits per second, the line's pace … */
  perSecond: number;
  /** … and how many may start back to back after a quiet period. */
  burst: number;
  /** Longest one acquisition waits before the intent steps back, untouched, and retries later. */
  maxWaitMs: number;
  /** A permit not released in this time is reclaimed: its holder is presumed dead. */
  permitTtlMs: number;
  /** Tries that may wait for a near slot inside their step at once (in-step-waits.ts); unset: 0. */
  inStepWaits?: number;
  /** `arrival`: the line ignores places (line-places.ts); unset: `priority`. */
  lineOrder?: 'priority' | 'arrival';
}

/** The Redis name of the quota shared by every worker of a task queue for one chain. */
export const quotaLimiterId = (taskQueue: string, chainId: number): string =>
  `${taskQueue}:rpc-quota:${chainId}`;

/** With Redis, every process that uses the same limiter id shares one quota. */
export interface ThrottleCluster {
  redisUrl: string;
  /** The CA (PEM) of a rediss:// server signed by a private one. */
  redisTlsCa?: string;
  limiterId: string;
}

/**
 * The line runs at 0.9 of the send window's sustained pace. Faster than the window, permits pile
 * up there, held by intents whose sends wait, and the backlog grows into paced retries and expired
 * permits; at exactly its pace, sends that late timers bunched are paced into retries. The tenth
 * left is the window's room to take them in (docs/benchmark.md).
 */
const lineShare = 0.9;

export const lineRateOf = (settings: ThrottleSettings) => ({
  perSecond: lineShare * sustainedPerSecond(settings),
  burst: settings.burst,
});

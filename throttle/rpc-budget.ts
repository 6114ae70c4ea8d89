import { randomUUID } from 'node:crypto';
import { DeliveryMargin } from './delivery-margin';
import { priorityOf, weightOf, type MethodWeights } from './rpc-weights';
import type { SpendWindow } from './spend-window';
import { log } from '../domain/log';

export interface RpcBudgetSettings {
  /** The provider's limit in units per second (see rpc-weights.ts); the window holds the burst. */
  unitsPerSecond: number;
  weights: MethodWeights;
}

/** One call's spending, for the metrics. */
export interface RpcSpend {
  method: string;
  units: number;
  waitedMs: number;
}

/**
 * What the budget did since it started, for the stop line: how many calls waited in its line and
 * for how long, and the delivery margin its window decisions used (what the window holds back of
 * each second: throttle/delivery-margin.ts).
 */
export interface RpcBudgetTally {
  calls: number;
  lined: number;
  linedMs: number;
  marginMs: { least: number; most: number; mean: number };
}

/** A provider's refusals are an expected condition: one line per endpoint per minute, counted. */
const refusalReportMs = 60_000;

/** A call waiting in the budget's line. */
interface Waiting {
  units: number;
  priority: number;
  /** It may go: the window was asked at `askedAt`. */
  go: (askedAt: number) => void;
  fail: (error: Error) => void;
}

/**
 * One provider endpoint's budget. A call goes at once when the window has room for it without
 * delaying the call at the head of the line; otherwise it waits in the line, in its method's
 * priority (the head and receipts first, then sends, look-ups that can wait last). The head
 * reserves its time in the endpoint's spend window (local, or in Redis shared by every process
 * that calls the endpoint); while it waits, the calls behind it go wherever they fit around it
 * (window-state.ts's Reservation). Bottleneck's queue is strictly in order, so the line is ours.
 */
export class RpcBudget {
  private readonly line: Waiting[] = [];
  /** This budget's name as a line's head in a shared window. */
  private readonly owner = randomUUID();
  private readonly margin = new DeliveryMargin();
  private pumping = false;
  /** Nothing goes before this (Date.now() time): a refusal here, for what this process knows. */
  private pausedUntil = 0;
  private refusalsUnreported = 0;
  private lastReportAt = 0;
  private closed = false;
  private readonly tallied = {
    calls: 0,
    lined: 0,
    linedMs: 0,
    marginSum: 0,
    least: Infinity,
    most: 0,
  };

  constructor(
    private readonly settings: RpcBudgetSettings,
    private readonly window: SpendWindow,
    readonly describe: string,
    private readonly onSpend?: (spend: RpcSpend) => void,
  ) {}

  /**
   * Waits until the window has the units of one `method` call, and spends them; `priority` (0
   * first, 9 last) places a call other than by its method (a background scan's, last).
   */
  async spend(method: string, priority = priorityOf(method)): Promise<void> {
    if (this.closed) throw new Error('rpc budget: closed');
    const units = weightOf(this.settings.weights, method);
    const startedAt = Date.now();
    let askedAt = performance.now();
    const marginMs = this.margin.marginMs;
    const lined = (await this.window.take(units, undefined, marginMs)) > 0;
    if (lined) {
      askedAt = await new Promise<number>((go, fail) => {
        const behind = this.line.findIndex((waiting) => waiting.priority > priority);
        const waiting = { units, priority, go, fail };
        this.line.splice(behind === -1 ? this.line.length : behind, 0, waiting);
        void this.pump();
      });
    }
    this.margin.leaving(askedAt);
    const waitedMs = Date.now() - startedAt;
    this.count(lined, waitedMs, marginMs);
    this.onSpend?.({ method, units, waitedMs });
  }

  private count(lined: boolean, waitedMs: number, marginMs: number): void {
    const t = this.tallied;
    t.calls++;
    if (lined) {
      t.lined++;
      t.linedMs += waitedMs;
    }
    t.marginSum += marginMs;
    t.least = Math.min(t.least, marginMs);
    t.most = Math.max(t.most, marginMs);
  }

  tally(): RpcBudgetTally {
    const { calls, lined, linedMs, marginSum, least, most } = this.tallied;
    return {
      calls,
      lined,
      linedMs,
      marginMs: { least: calls ? least : 0, most, mean: calls ? marginSum / calls : 0 },
    };
  }

  /**
   * Lets the line go: the head asks as the reservation's owner; each weight behind it asks once
   * as a backfill; then the line sleeps until the first of them may ask again.
   */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.line.length > 0 && !this.closed) {
        let nextAskMs = Number.POSITIVE_INFINITY;
        const noRoomFor = new Set<number>();
        for (const waiting of [...this.line]) {
          const head = waiting === this.line[0];
          if (!head && noRoomFor.has(waiting.units)) continue;
          const askedAt = performance.now();
          const owner = head ? this.owner : undefined;
          const waitMs = await this.window
            .take(waiting.units, owner, this.margin.marginMs)
            .catch((error: Error) => error);
          if (typeof waitMs === 'number' && waitMs > 0) {
            noRoomFor.add(waiting.units);
            nextAskMs = Math.min(nextAskMs, waitMs);
            continue;
          }
          // Closed meanwhile: the call already failed with the line.
          const index = this.line.indexOf(waiting);
          if (index === -1) continue;
          this.line.splice(index, 1);
          // The window could not be asked (Redis away): this call fails, the line goes on.
          if (waitMs instanceof Error) waiting.fail(waitMs);
          else waiting.go(askedAt);
          if (head) break; // the next head reserves in turn
        }
        if (nextAskMs !== Number.POSITIVE_INFINITY && this.line.length > 0) {
          await new Promise((resolve) => setTimeout(resolve, nextAskMs));
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Every waiting call fails with `error`. */
  private end(error: Error): void {
    for (const waiting of this.line.splice(0)) waiting.fail(error);
  }

  /**
   * The provider refused a `method` call for its rate (429, or its JSON-RPC "limit exceeded"):
   * the window cuts the rate in use for every process sharing it and honours `retryAfterMs` (its
   * Retry-After header); without one, this process holds its sends back while the window earns
   * the refused call back.
   */
  refused(method: string, retryAfterMs?: number): void {
    if (this.closed) return;
    const units = weightOf(this.settings.weights, method);
    const pauseMs = retryAfterMs ?? (1000 * units) / this.settings.unitsPerSecond;
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + pauseMs);
    this.window
      .refused(units, retryAfterMs)
      .catch((error: Error) => log.error(`rpc budget: ${error.message}`));
    this.refusalsUnreported++;
    if (Date.now() - this.lastReportAt >= refusalReportMs) {
      log.warn(
        `rpc budget: ${this.describe} refused ${this.refusalsUnreported} call(s) for its rate ` +
          `since the last report; the rate in use is cut and climbs back while calls succeed`,
      );
      this.refusalsUnreported = 0;
      this.lastReportAt = Date.now();
    }
  }

  /** How long calls still wait after a refusal this process met (0: none). */
  pausedForMs(): number {
    return Math.max(0, this.pausedUntil - Date.now());
  }

  close(): Promise<void> {
    this.closed = true;
    this.end(new Error('rpc budget: closed'));
    return Promise.resolve();
  }
}

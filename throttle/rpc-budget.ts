import { RelayerClosedError } from '../domain/errors';
import { randomUUID } from 'node:crypto';
import { DeliveryMargin } from './delivery-margin';
import { priorityOf, weightOf, type MethodWeights } from './rpc-weights';
import type { SpendWindow } from './spend-window';
import { lateDeparture } from './late-departure';
import type { CallDeparture } from '../domain/call-departure';
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
 * each second: throttle/delivery-margin.ts). Where the quota's use falls short, `busy` tells
 * demand from the limiter: how long the line held a call (of `spanMs`, the first call to the
 * last) and the units spent meanwhile; `wakes`, how late the line's timer woke past the window's
 * answer.
 */
export interface RpcBudgetTally {
  calls: number;
  lined: number;
  linedMs: number;
  marginMs: { least: number; most: number; mean: number };
  units: number;
  spanMs: number;
  busy: { ms: number; units: number };
  wakes: { count: number; lateMs: number };
  /** Calls that left later than the margin covers: their spends moved (late-departure.ts). */
  movedLate: number;
}

/** A provider's refusals are an expected condition: one line per endpoint per minute, counted. */
const refusalReportMs = 60_000;

/** A call waiting in the budget's line. */
interface Waiting {
  id: string;
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
  /** Calls spent so far: each spend's id in the window. */
  private spent = 0;
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
    units: 0,
    firstAt: 0,
    lastAt: 0,
    busyMs: 0,
    busyUnits: 0,
    wakes: 0,
    lateMs: 0,
    moved: 0,
  };
  /** When the line last went from empty to holding a call (performance.now()); unset: empty. */
  private busySince: number | undefined;

  constructor(
    private readonly settings: RpcBudgetSettings,
    private readonly window: SpendWindow,
    readonly describe: string,
    private readonly onSpend?: (spend: RpcSpend) => void,
  ) {}

  /**
   * Waits until the window has the units of one `method` call, and spends them; `priority` (0
   * first, 9 last) places a call other than by its method (a background scan's, last). The call's
   * transport says when it left (CallDeparture).
   */
  async spend(method: string, priority = priorityOf(method)): Promise<CallDeparture> {
    if (this.closed) throw new RelayerClosedError({ refuses: 'makes no new RPC calls' });
    const units = weightOf(this.settings.weights, method);
    const id = `${this.owner}.${++this.spent}`;
    const startedAt = Date.now();
    let askedAt = performance.now();
    const marginMs = this.margin.marginMs;
    const lined = (await this.window.take(units, undefined, marginMs, id)) > 0;
    if (lined) {
      askedAt = await new Promise<number>((go, fail) => {
        const behind = this.line.findIndex((waiting) => waiting.priority > priority);
        const waiting = { id, units, priority, go, fail };
        this.busySince ??= performance.now();
        this.line.splice(behind === -1 ? this.line.length : behind, 0, waiting);
        void this.pump();
      });
    }
    const waitedMs = Date.now() - startedAt;
    this.count(lined, waitedMs, marginMs, units);
    this.onSpend?.({ method, units, waitedMs });
    return lateDeparture(this.window, { id, units, decidedAt: askedAt, marginMs }, this.margin, {
      describe: `rpc budget ${this.describe}`,
      isClosed: () => this.closed,
      onMoved: () => this.tallied.moved++,
    });
  }

  private count(lined: boolean, waitedMs: number, marginMs: number, units: number): void {
    const t = this.tallied;
    const now = performance.now();
    if (t.calls === 0) t.firstAt = now;
    t.lastAt = now;
    t.calls++;
    t.units += units;
    // The call that empties the line was in it; any other went while calls waited around it.
    if (lined || this.busySince !== undefined) t.busyUnits += units;
    if (lined) {
      t.lined++;
      t.linedMs += waitedMs;
    }
    t.marginSum += marginMs;
    t.least = Math.min(t.least, marginMs);
    t.most = Math.max(t.most, marginMs);
  }

  tally(): RpcBudgetTally {
    const t = this.tallied;
    const busyNow = this.busySince === undefined ? 0 : performance.now() - this.busySince;
    return {
      calls: t.calls,
      lined: t.lined,
      linedMs: t.linedMs,
      marginMs: {
        least: t.calls ? t.least : 0,
        most: t.most,
        mean: t.calls ? t.marginSum / t.calls : 0,
      },
      units: t.units,
      spanMs: t.lastAt - t.firstAt,
      busy: { ms: t.busyMs + busyNow, units: t.busyUnits },
      wakes: { count: t.wakes, lateMs: t.lateMs },
      movedLate: t.moved,
    };
  }

  /** The line is empty again: its busy time ends. */
  private idle(): void {
    if (this.line.length > 0 || this.busySince === undefined) return;
    this.tallied.busyMs += performance.now() - this.busySince;
    this.busySince = undefined;
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
            .take(waiting.units, owner, this.margin.marginMs, waiting.id)
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
          this.idle();
          // The window could not be asked (Redis away): this call fails, the line goes on.
          if (waitMs instanceof Error) waiting.fail(waitMs);
          else waiting.go(askedAt);
          if (head) break; // the next head reserves in turn
        }
        if (nextAskMs !== Number.POSITIVE_INFINITY && this.line.length > 0) {
          const dueAt = performance.now() + nextAskMs;
          await new Promise((resolve) => setTimeout(resolve, nextAskMs));
          this.tallied.wakes++;
          this.tallied.lateMs += Math.max(0, performance.now() - dueAt);
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Every waiting call fails with `error`. */
  private end(error: Error): void {
    for (const waiting of this.line.splice(0)) waiting.fail(error);
    this.idle();
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
    this.end(new RelayerClosedError({ refuses: 'makes no new RPC calls' }));
    return Promise.resolve();
  }
}

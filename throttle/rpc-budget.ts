import Bottleneck from 'bottleneck';
import { endLimiter } from './end-limiter';
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

/** A provider's refusals are an expected condition: one line per endpoint per minute, counted. */
const refusalReportMs = 60_000;

/**
 * One provider endpoint's budget. A call goes at once while nobody waits and the window has room;
 * otherwise calls wait in a Bottleneck queue one at a time, in their method's priority (the head and receipts first, then sends, look-ups that can wait last), and
 * the one at the front spends its method's weight from the endpoint's spend window (local, or in
 * Redis shared by every process that calls the endpoint), asking again when the window says.
 */
export class RpcBudget {
  private readonly line = new Bottleneck({ maxConcurrent: 1 });
  /** Calls in the line: while there are any, a new call goes behind them. */
  private inLine = 0;
  /** Nothing goes before this (Date.now() time): a refusal here, for what this process knows. */
  private pausedUntil = 0;
  private refusalsUnreported = 0;
  private lastReportAt = 0;
  private closed = false;

  constructor(
    private readonly settings: RpcBudgetSettings,
    private readonly window: SpendWindow,
    private readonly describe: string,
    private readonly onSpend?: (spend: RpcSpend) => void,
  ) {}

  /** Waits until the window has the units of one `method` call, and spends them. */
  async spend(method: string): Promise<void> {
    const units = weightOf(this.settings.weights, method);
    const startedAt = Date.now();
    await this.line.schedule({ priority: priorityOf(method) }, async () => {
      for (let waitMs = await this.window.take(units); waitMs > 0;) {
        if (this.closed) throw new Error('rpc budget: closed');
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        waitMs = await this.window.take(units);
      }
    });
    this.onSpend?.({ method, units, waitedMs: Date.now() - startedAt });
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

  async close(): Promise<void> {
    this.closed = true;
    await endLimiter(this.line);
  }
}

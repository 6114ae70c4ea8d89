import Bottleneck from 'bottleneck';
import { endLimiter } from './end-limiter';
import { isLostRedisState, refillOf, type Rate } from './refill';
import { essentialMethods, priorityOf, weightOf, type MethodWeights } from './rpc-weights';

export interface RpcBudgetSettings {
  /** The provider's limit: units per second (see rpc-weights.ts) … */
  unitsPerSecond: number;
  /** … and how many may go back to back after a quiet period. */
  burstUnits: number;
  weights: MethodWeights;
}

/** One call's spending, for the metrics. */
export interface RpcSpend {
  method: string;
  units: number;
  waitedMs: number;
}

/** With Redis, every process that names the same budget id shares one budget. */
export interface SharedBudget {
  connection: Bottleneck.IORedisConnection;
  budgetId: string;
}

/**
 * A provider's 429 means another app on the same key, or a provider counting differently from
 * our table, took part of the limit: each one doubles what this process's calls cost (up to
 * `maxSlowdown`), and every `easeAfterMs` without one halves it again — multiplicative decrease,
 * so a budget set 4× too high is matched after two refusals.
 */
const easeAfterMs = 30_000;
const maxSlowdown = 16;

/**
 * The sustained rate runs 2% under the provider's: a call reaches the provider a few ms after the
 * budget lets it go, and those ms differ from call to call.
 */
const rateMargin = 0.98;

/**
 * How far apart the provider may see two calls the budget let go together, at most: the reservoir
 * keeps this much of the rate out of its burst, so calls bunched by those ms still fit the
 * provider's bucket.
 */
const deliveryJitterMs = 50;

/**
 * One provider endpoint's budget: a Bottleneck reservoir of units, refilled at the provider's
 * rate up to its burst, every call weighted by its method and queued by its method's priority
 * (the head and receipts first, then sends, look-ups that can wait last). Clustered through
 * Redis, every process draws from one reservoir.
 */
export class RpcBudget {
  private limiter: Bottleneck;
  /** What a call costs here, times its weight: 1, or more after the provider's refusals. */
  private slowdown = 1;
  private lastRefusalAt = 0;
  /** Nothing goes before this (Date.now() time): the provider's Retry-After. */
  private pausedUntil = 0;
  private closed = false;

  constructor(
    private readonly settings: RpcBudgetSettings,
    private readonly shared?: SharedBudget,
    private readonly onSpend?: (spend: RpcSpend) => void,
  ) {
    this.limiter = this.createLimiter(this.fullRate());
  }

  /** Resolves once the limiter (and, clustered, its Redis state) is ready. */
  async ready(): Promise<void> {
    await this.limiter.ready();
    // Redis keeps the settings of whoever created the budget first: a deploy's change wins.
    if (this.shared) await this.limiter.updateSettings(refillOf(this.fullRate(), true));
  }

  /**
   * Waits until the budget has the units of one `method` call, and spends them: its weight, times
   * the slowdown after a provider's refusals, in pieces no bigger than the burst.
   */
  async spend(method: string): Promise<void> {
    const units = weightOf(this.settings.weights, method);
    const startedAt = Date.now();
    const pausedMs = this.pausedForMs();
    if (pausedMs > 0) await new Promise((resolve) => setTimeout(resolve, pausedMs));
    const { burst } = this.fullRate();
    for (let owed = units * this.currentSlowdown(); owed > 0; owed -= burst) {
      await this.take(priorityOf(method), Math.min(owed, burst));
    }
    this.onSpend?.({ method, units, waitedMs: Date.now() - startedAt });
  }

  private async take(priority: number, weight: number): Promise<void> {
    const limiter = this.limiter;
    try {
      await limiter.schedule({ priority, weight }, () => Promise.resolve());
    } catch (error) {
      if (!isLostRedisState(error) || this.closed) throw error;
      this.recover(limiter);
      return this.take(priority, weight);
    }
  }

  /**
   * The provider refused a `method` call for its rate (429, or its JSON-RPC "limit exceeded"):
   * nothing more goes from this process for `retryAfterMs` (its Retry-After header), or, without
   * one, for as long as the budget takes to earn the refused call back — a fixed second would
   * stall a budget that is only a few jittered ms ahead of the provider. Its calls also cost more
   * for a while (see easeAfterMs). Bottleneck's settings stay as they are: updateSettings stops an
   * in-process limiter's refill for good (2.19.5).
   */
  refused(method: string, retryAfterMs?: number): void {
    if (this.closed) return;
    const pauseMs =
      retryAfterMs ??
      (1000 * weightOf(this.settings.weights, method) * this.currentSlowdown()) /
        this.fullRate().perSecond;
    this.slowdown = Math.min(maxSlowdown, this.currentSlowdown() * 2);
    this.lastRefusalAt = Date.now() + pauseMs;
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + pauseMs);
  }

  /** How long calls still wait for the provider's Retry-After (0: none). */
  pausedForMs(): number {
    return Math.max(0, this.pausedUntil - Date.now());
  }

  /** The slowdown, eased by half for every easeAfterMs since the last refusal. */
  private currentSlowdown(): number {
    const eased = Math.floor((Date.now() - this.lastRefusalAt) / easeAfterMs);
    if (eased > 0 && this.slowdown > 1) {
      this.slowdown = Math.max(1, this.slowdown / 2 ** eased);
      this.lastRefusalAt += eased * easeAfterMs;
    }
    return this.slowdown;
  }

  async close(): Promise<void> {
    this.closed = true;
    await endLimiter(this.limiter);
  }

  private fullRate(): Rate {
    const { unitsPerSecond, burstUnits, weights } = this.settings;
    const heaviest = Math.max(...essentialMethods.map((method) => weightOf(weights, method)));
    const jitter = Math.ceil((unitsPerSecond * deliveryJitterMs) / 1000);
    return {
      perSecond: unitsPerSecond * rateMargin,
      burst: Math.max(heaviest, burstUnits - jitter),
    };
  }

  private createLimiter(rate: Rate): Bottleneck {
    const limiter = new Bottleneck({
      ...refillOf(rate, this.shared !== undefined),
      reservoir: rate.burst,
      ...(this.shared && {
        id: this.shared.budgetId,
        datastore: 'ioredis',
        connection: this.shared.connection,
        clearDatastore: false,
      }),
    });
    limiter.on('error', (error: Error) => {
      if (isLostRedisState(error)) this.recover(limiter);
      else console.error(`rpc budget: ${error.message}`);
    });
    return limiter;
  }

  private recover(failed: Bottleneck): void {
    if (this.closed || failed !== this.limiter) return;
    console.error('rpc budget: the shared budget vanished from Redis; recreating it');
    this.limiter = this.createLimiter(this.fullRate());
    this.ready().catch((error: Error) => console.error(`rpc budget: ${error.message}`));
    void endLimiter(failed);
  }
}

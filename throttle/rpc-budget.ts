import Bottleneck from 'bottleneck';
import type Redis from 'ioredis';
import { isLostRedisState, refillOf, type Rate } from './refill';
import { priorityOf, weightOf, type MethodWeights } from './rpc-weights';

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
 * How long a provider's 429 slows this process down, after its Retry-After has passed: another
 * app on the same key, or a provider counting differently from our table, took part of the limit.
 */
const slowedForMs = 30_000;

/** A 429 without Retry-After pauses the budget this long. */
const defaultRetryAfterMs = 1000;

/**
 * The sustained rate runs 2% under the provider's: a call reaches the provider a few ms after the
 * budget lets it go, and those ms differ from call to call.
 */
const rateMargin = 0.98;

/**
 * One provider endpoint's budget: a Bottleneck reservoir of units, refilled at the provider's
 * rate up to its burst, every call weighted by its method and queued by its method's priority
 * (sends first, look-ups that can wait last). Clustered through Redis, every process draws from
 * one reservoir.
 */
export class RpcBudget {
  private limiter: Bottleneck;
  private slowedUntil = 0;
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

  /** Waits until the budget has the units of one `method` call, and spends them. */
  async spend(method: string): Promise<void> {
    const units = weightOf(this.settings.weights, method);
    const slowed = Date.now() < this.slowedUntil;
    const weight = slowed ? Math.min(units * 2, this.settings.burstUnits) : units;
    const startedAt = Date.now();
    const limiter = this.limiter;
    try {
      await limiter.schedule({ priority: priorityOf(method), weight }, () => Promise.resolve());
    } catch (error) {
      if (!isLostRedisState(error) || this.closed) throw error;
      this.recover(limiter);
      return this.spend(method);
    }
    this.onSpend?.({ method, units, waitedMs: Date.now() - startedAt });
  }

  /**
   * The provider refused a call for its rate (429, or its JSON-RPC "limit exceeded"): the budget
   * spends what `retryAfterMs` (its Retry-After header, when it sent one) is worth at once, ahead
   * of every waiting read, so nothing but sends already in line goes before it has refilled; and
   * for a while after, this process's calls cost twice their weight. Neither changes Bottleneck's
   * settings: updateSettings stops an in-process limiter's refill for good (2.19.5).
   */
  async refused(retryAfterMs = defaultRetryAfterMs): Promise<void> {
    if (this.closed) return;
    this.slowedUntil = Date.now() + retryAfterMs + slowedForMs;
    const { perSecond, burst } = this.fullRate();
    const limiter = this.limiter;
    const left = await limiter.currentReservoir().catch(() => 0);
    // What is left now, and what the pause would refill.
    let owed = Math.max(0, left ?? 0) + Math.ceil((perSecond * retryAfterMs) / 1000);
    for (; owed > 0; owed -= burst) {
      limiter
        .schedule({ priority: 0, weight: Math.min(owed, burst) }, () => Promise.resolve())
        .catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }

  private fullRate(): Rate {
    return {
      perSecond: this.settings.unitsPerSecond * rateMargin,
      burst: this.settings.burstUnits,
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
    limiter.on('error', (error: Error) => console.error(`rpc budget: ${error.message}`));
    return limiter;
  }

  private recover(failed: Bottleneck): void {
    if (failed !== this.limiter) return;
    console.error('rpc budget: the shared budget vanished from Redis; recreating it');
    this.limiter = this.createLimiter(this.fullRate());
    this.ready().catch((error: Error) => console.error(`rpc budget: ${error.message}`));
    void failed.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }
}

/** The Redis connection the budgets of one process share (one subscriber for all of them). */
export const sharedBudgetConnection = (client: Redis): Bottleneck.IORedisConnection =>
  new Bottleneck.IORedisConnection({ client });

import { CancelledFailure } from '@temporalio/common';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import type { Context } from '@temporalio/activity';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AcquireThrottleResult } from '../activities/acquire-throttle';
import type { CloseIntentResult } from '../activities/close-intent';
import type { ConfirmResult } from '../activities/confirm';
import { RelayerError } from '../domain/errors';
import { ErrorName, nonRetryableErrorTypes } from '../domain/error-catalogue';

const stallResolutionMs = 10;

/** The longest delay a histogram of event-loop delays saw, in ms, counting its resolution. */
export const longestStallMs = (stalls: IntervalHistogram): number =>
  Math.ceil(stalls.max / 1e6) + stallResolutionMs;

export type ActivityOutcome = 'completed' | 'failed' | 'retry' | 'paced' | 'abandoned' | 'panic';

/** Errors only a bug throws: an activity that hits one is retried and counted, never done. */
const programmingErrors = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];

export function classifyFailure(error: unknown, shutdownCancelled: boolean): ActivityOutcome {
  if (error instanceof CancelledFailure && shutdownCancelled) return 'abandoned';
  if (programmingErrors.some((kind) => error instanceof kind)) return 'panic';
  if (error instanceof RelayerError && error.name === ErrorName.sendPaced) return 'paced';
  if (error instanceof RelayerError && nonRetryableErrorTypes.includes(error.name)) return 'failed';
  return 'retry';
}

/**
 * What one worker process did, in the seed's four numbers: sends handed to the node, attempts
 * that will be retried, steps abandoned to the drain timeout (safely retryable) and panics (bugs:
 * the task is retried, never marked done). Also exported as Prometheus metrics.
 */
export class RunStats {
  sent = 0;
  retry = 0;
  /** Sends that waited for the RPC pace (a timer, then a retry): not failures. */
  paced = 0;
  abandoned = 0;
  panics = 0;
  private reclaimedPermits: () => number = () => 0;
  private stalls?: IntervalHistogram;
  private readonly executions: Counter<'activity' | 'outcome'>;
  private readonly permitWait: Histogram;
  private readonly permitRefusals: Counter<'reason'>;
  private readonly finished: Counter<'status' | 'asset'>;
  private readonly latency: Histogram<'status'>;
  private readonly delayed: Counter<'reason'>;

  constructor(private readonly registry: Registry) {
    this.executions = new Counter({
      name: 'relayer_activity_executions_total',
      help: 'Activity attempts by outcome: completed, failed (not retryable), retry, paced, abandoned, panic',
      labelNames: ['activity', 'outcome'],
      registers: [registry],
    });
    this.permitWait = new Histogram({
      name: 'relayer_permit_wait_seconds',
      help: 'Time from asking the throttle for a permit to getting it',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    });
    this.permitRefusals = new Counter({
      name: 'relayer_permit_refusals_total',
      help: 'Permit requests the throttle turned away (the intent stays untouched and asks again)',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.finished = new Counter({
      name: 'relayer_intents_finished_total',
      help: 'Intents this process took to their end, by final status (confirmed = completed) and asset (native, or the token address)',
      labelNames: ['status', 'asset'],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'relayer_intent_latency_seconds',
      help: 'From submit to the final status, by that status',
      labelNames: ['status'],
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 1800],
      registers: [registry],
    });
    this.delayed = new Counter({
      name: 'relayer_intents_delayed_total',
      help: 'intent.delayed notices this process recorded, by reason: threshold (first) or fee_bump',
      labelNames: ['reason'],
      registers: [registry],
    });
  }

  record(activity: string, outcome: ActivityOutcome, result?: unknown): void {
    this.executions.inc({ activity, outcome });
    if (outcome === 'completed' && activity === 'broadcast') this.sent++;
    if (outcome === 'retry') this.retry++;
    if (outcome === 'paced') this.paced++;
    if (outcome === 'abandoned') this.abandoned++;
    if (outcome === 'panic') this.panics++;
    if (outcome !== 'completed') return;
    if (activity === 'acquireThrottle' || activity === 'tryAcquirePermit') {
      const grant = result as AcquireThrottleResult;
      if (grant.granted) this.permitWait.observe(grant.waitedMs / 1000);
      else this.permitRefusals.inc({ reason: grant.reason });
    }
    if (activity === 'confirm') {
      const confirmed = result as ConfirmResult;
      if (confirmed.state === 'pending' && confirmed.delayed) {
        this.delayed.inc({ reason: confirmed.delayed });
      }
      if (confirmed.state !== 'pending') {
        const status =
          confirmed.state === 'confirmed'
            ? 'confirmed'
            : confirmed.state === 'mismatch'
              ? 'needs_review'
              : 'failed';
        this.recordFinished(status, confirmed.ageMs, confirmed.asset);
      }
    }
    if (activity === 'closeIntent') {
      const closed = result as CloseIntentResult;
      this.recordFinished(closed.status, closed.ageMs, closed.asset);
    }
  }

  private recordFinished(status: string, ageMs: number, asset = 'native'): void {
    this.finished.inc({ status, asset });
    this.latency.observe({ status }, ageMs / 1000);
  }

  /** Counts a rejection nobody handled (a bug in floating code) instead of dying of it. */
  recordUnhandled(): void {
    this.panics++;
    this.executions.inc({ activity: '(unhandled)', outcome: 'panic' });
  }

  /**
   * The permits of this process's throttle, in the metrics: those held now, and those whose
   * release never came (taken back by their expiration; also in the stop line).
   */
  watchPermits(throttle: { inFlight: number; permitsReclaimed: number }): void {
    this.reclaimedPermits = () => throttle.permitsReclaimed;
    new Gauge({
      name: 'relayer_permits_in_use',
      help: 'RPC permits this process holds right now (sends in flight)',
      registers: [this.registry],
      collect() {
        this.set(throttle.inFlight);
      },
    });
    new Gauge({
      name: 'relayer_permits_reclaimed_total',
      help: 'Permits this process granted that were taken back by their expiration, never released',
      registers: [this.registry],
      collect() {
        this.set(throttle.permitsReclaimed);
      },
    });
  }

  /**
   * A send begins. From the first, the longest the event loop is held up is kept for the stop
   * line: a send can leave that much after the quota let it go, and sends bunched by more than
   * the quota's delivery margin (measured: throttle/delivery-margin.ts) may reach a provider too
   * close together. The stalls of starting up (loading code) come before any send and bunch none.
   */
  sendStarting(): void {
    if (this.stalls) return;
    this.stalls = monitorEventLoopDelay({ resolution: stallResolutionMs });
    this.stalls.enable();
  }

  summary(): string {
    const reclaimed = this.reclaimedPermits();
    return [
      `sent ${this.sent}, retry ${this.retry}, abandoned ${this.abandoned}, panics ${this.panics}`,
      ...(this.paced > 0 ? [`paced ${this.paced}`] : []),
      ...(reclaimed > 0 ? [`reclaimed ${reclaimed}`] : []),
      ...(this.stalls ? [`longest stall ${longestStallMs(this.stalls)} ms`] : []),
    ].join(', ');
  }

  get interceptor(): ActivityInterceptorsFactory {
    return (context) => ({ inbound: new RecordOutcomes(this, context) });
  }
}

class RecordOutcomes implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly stats: RunStats,
    private readonly context: Context,
  ) {}

  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ) {
    const activity = this.context.info.activityType;
    if (activity === 'broadcast') this.stats.sendStarting();
    try {
      const result = await next(input);
      this.stats.record(activity, 'completed', result);
      return result;
    } catch (error) {
      const shutdown = this.context.cancellationDetails?.workerShutdown === true;
      this.stats.record(activity, classifyFailure(error, shutdown));
      throw error;
    }
  }
}

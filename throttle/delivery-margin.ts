import { deliveryJitterMs } from './window-state';

/** Delays kept: the last this many calls. */
const kept = 256;
/** Calls measured before the measure replaces the assumed margin. */
const leastMeasured = 20;

/**
 * The delay between a window's decision and the call it let go leaving this process (its
 * request's headers written: chain/call-departures.ts) — a Redis round trip, the event loop's
 * turns, a wait for a socket — measured per call. Calls bunch by how much their delays differ,
 * not by the delay itself: the window's margin is the spread of the last 256, their 99th
 * percentile less the least (plus a millisecond of rounding), the assumed 25 ms until 20 are
 * measured. Asked at the moment of each take, so a process that gets busy widens the fleet's
 * window within a call or two.
 */
export class DeliveryMargin {
  private readonly delays: number[] = [];
  private next = 0;
  private measured: { marginMs: number; leastMs: number } | undefined;

  /** A call decided at `decidedAt` (performance.now()) leaves now. */
  leaving(decidedAt: number): void {
    const delayMs = performance.now() - decidedAt;
    if (this.delays.length < kept) this.delays.push(delayMs);
    else this.delays[this.next] = delayMs;
    this.next = (this.next + 1) % kept;
    this.measured = undefined;
  }

  /** The margin this process needs now (ms). */
  get marginMs(): number {
    if (this.delays.length < leastMeasured) return deliveryJitterMs;
    return this.measure().marginMs;
  }

  /** The least delay kept (ms; 0 before any): the margin covers the spread above it. */
  get leastMs(): number {
    return this.delays.length === 0 ? 0 : this.measure().leastMs;
  }

  private measure(): { marginMs: number; leastMs: number } {
    if (this.measured === undefined) {
      const sorted = [...this.delays].sort((a, b) => a - b);
      const leastMs = sorted[0]!;
      const marginMs = Math.ceil(sorted[Math.floor(sorted.length * 0.99)]! - leastMs) + 1;
      this.measured = { marginMs, leastMs };
    }
    return this.measured;
  }
}

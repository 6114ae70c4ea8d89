import { deliveryJitterMs } from './window-state';

/** Delays kept: the last this many decisions. */
const kept = 256;
/** Decisions measured before the measure replaces the assumed margin. */
const leastMeasured = 20;

/**
 * The delay between asking the spend window and the call that asked leaving this process — a
 * Redis round trip, the event loop's turns — measured per decision. Calls bunch by how much
 * their delays differ, not by the delay itself: the window's margin is the spread of the last
 * 256, their 99th percentile less the least (plus a millisecond of rounding), the assumed 25 ms
 * until 20 are measured. Asked at the moment of each take, so a process that gets busy widens
 * the fleet's window within a decision or two.
 */
export class DeliveryMargin {
  private readonly delays: number[] = [];
  private next = 0;
  private measured: number | undefined;

  /** A decision asked at `askedAt` (performance.now()) lets its call leave now. */
  leaving(askedAt: number): void {
    const delayMs = performance.now() - askedAt;
    if (this.delays.length < kept) this.delays.push(delayMs);
    else this.delays[this.next] = delayMs;
    this.next = (this.next + 1) % kept;
    this.measured = undefined;
  }

  /** The margin this process needs now (ms). */
  get marginMs(): number {
    if (this.delays.length < leastMeasured) return deliveryJitterMs;
    if (this.measured === undefined) {
      const sorted = [...this.delays].sort((a, b) => a - b);
      this.measured = Math.ceil(sorted[Math.floor(sorted.length * 0.99)]! - sorted[0]!) + 1;
    }
    return this.measured;
  }
}

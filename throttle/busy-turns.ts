/**
 * When a try refused for a full in-flight bound should come back: turns one freed slot apart
 * (hold time ÷ bound), in the order refused, jittered late by a tenth to a half of a slot so
 * they keep their order. Per process: with several processes, some come back early.
 */
export class BusyTurns {
  /** When the last try refused was told to come back. */
  private tail = 0;
  /** How long permits are held, smoothed: how fast a full in-flight bound frees a slot. */
  private holdMs = 0;

  constructor(private readonly maxInFlight: number) {}

  /** A permit was given back after `ms`. */
  held(ms: number): void {
    this.holdMs = this.holdMs === 0 ? ms : 0.9 * this.holdMs + 0.1 * ms;
  }

  /** The ms a try refused now should wait. */
  next(): number {
    const now = Date.now();
    const interval = Math.max(minTurnMs, this.holdMs / this.maxInFlight);
    this.tail = Math.max(this.tail, now) + interval;
    const waitMs = this.tail - now + interval * (0.1 + Math.random() * 0.4);
    return Math.min(Math.max(Math.round(waitMs), minTurnMs), maxTurnMs);
  }
}

/** A turn for an in-flight slot further out than this is asked again then. */
const maxTurnMs = 5 * 60_000;

/** A refused caller never comes back sooner: each try costs a workflow task. */
const minTurnMs = 50;

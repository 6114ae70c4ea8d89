/**
 * The line of permits at the quota's rate. A try that finds no room now is not refused: it is
 * given the next free slot of the line (GCRA's reservation, as golang.org/x/time/rate's Reserve)
 * and comes back at that time to take its permit without queueing again — one timer however late
 * it fires. Slots are kept by key (the intent), so a try re-run after a crash gets the same slot,
 * and a cancelled intent's slot goes to the next one to ask.
 */
export interface PermitLine {
  /**
   * The ms until `key`'s slot (0: now); the same slot for the same key until taken or cancelled.
   */
  reserve(key: string): Promise<number>;
  /** `key` took its permit: its slot is used. */
  taken(key: string): Promise<void>;
  /** `key` will not come back: its slot, if still ahead, goes to the next to reserve. */
  cancel(key: string): Promise<void>;
}

/** The line's pace: permits per second (no faster than the send window lets sends through). */
export interface LineRate {
  perSecond: number;
  burst: number;
}

/** A slot not taken this long after its time is forgotten: its holder is gone. */
export const staleSlotMs = 10 * 60_000;

export interface LineState {
  /** GCRA's theoretical arrival time: the line's tail. */
  tat: number;
  reserved: Map<string, number>;
  /** Slots given back by cancels, earliest first. */
  freed: number[];
  sweptAt: number;
}

export const emptyLine = (): LineState => ({ tat: 0, reserved: new Map(), freed: [], sweptAt: 0 });

/** `key`'s slot at `now`: its own if it has one, else a freed one still ahead, else the tail's. */
export function reserveSlot(state: LineState, now: number, key: string, rate: LineRate): number {
  const own = state.reserved.get(key);
  if (own !== undefined) return own;
  sweep(state, now);
  while (state.freed.length > 0 && state.freed[0]! <= now) state.freed.shift();
  let slot = state.freed.shift();
  if (slot === undefined) {
    const interval = 1000 / rate.perSecond;
    const tail = Math.max(state.tat, now);
    slot = Math.max(now, tail - (rate.burst - 1) * interval);
    state.tat = tail + interval;
  }
  state.reserved.set(key, slot);
  return slot;
}

export function cancelSlot(state: LineState, now: number, key: string): void {
  const slot = state.reserved.get(key);
  state.reserved.delete(key);
  if (slot === undefined || slot <= now) return;
  state.freed.push(slot);
  state.freed.sort((a, b) => a - b);
}

function sweep(state: LineState, now: number): void {
  if (now - state.sweptAt < 10_000) return;
  state.sweptAt = now;
  for (const [key, slot] of state.reserved) {
    if (slot < now - staleSlotMs) state.reserved.delete(key);
  }
}

/** For one process; `now` is injectable (ms). */
export function localPermitLine(rate: LineRate, now: () => number = () => Date.now()): PermitLine {
  const state = emptyLine();
  return {
    reserve: (key) =>
      Promise.resolve(Math.max(0, Math.ceil(reserveSlot(state, now(), key, rate) - now()))),
    taken: (key) => Promise.resolve(void state.reserved.delete(key)),
    cancel: (key) => Promise.resolve(cancelSlot(state, now(), key)),
  };
}

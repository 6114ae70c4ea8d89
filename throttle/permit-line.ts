import { slotToTake, unplaced, type LinePlace, type SlotHolder } from './line-places';

/**
 * The line of permits at the quota's rate. A try that finds no room now is not refused: it is
 * given the next free slot of the line (GCRA's reservation, as golang.org/x/time/rate's Reserve)
 * and comes back at that time to take its permit without queueing again — one timer however late
 * it fires. Slots are kept by key (the intent), so a try re-run after a crash gets the same slot,
 * and a cancelled intent's slot goes to the next one to ask. A newcomer of a higher priority, or
 * of a tenant holding less than its weight's share, takes an earlier slot from one it goes before
 * (line-places.ts), who takes the newcomer's: that one intent comes back once more, at most once.
 */
export interface PermitLine {
  /**
   * The ms until `key`'s slot (0: now); the same slot for the same key until taken or cancelled,
   * or moved back once by a newcomer that goes before it.
   */
  reserve(key: string, place?: LinePlace): Promise<number>;
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

/**
 * A try this close to its slot takes it rather than sleeping again (a timer may fire a little
 * early by this process's clock; the line keeps Redis's, and clocks differ by a few ms), so a slot
 * this close is never moved: its holder may be taking it right now.
 */
export const slotDueMs = 20;

export interface LineState {
  /** GCRA's theoretical arrival time: the line's tail. */
  tat: number;
  reserved: Map<string, SlotHolder>;
  /** Slots given back by cancels, earliest first. */
  freed: number[];
  /** Slots held by tenant, for the weighted shares. */
  held: Map<string, number>;
  sweptAt: number;
}

export const emptyLine = (): LineState => ({
  tat: 0,
  reserved: new Map(),
  freed: [],
  held: new Map(),
  sweptAt: 0,
});

/**
 * `key`'s slot at `now`: its own if it has one, else a freed one still ahead, else the tail's —
 * or an earlier one taken from a holder it goes before, who gets that one instead.
 */
export function reserveSlot(
  state: LineState,
  now: number,
  key: string,
  rate: LineRate,
  place: LinePlace = unplaced,
): number {
  const own = state.reserved.get(key);
  if (own !== undefined) return own.slot;
  sweep(state, now);
  while (state.freed.length > 0 && state.freed[0]! <= now) state.freed.shift();
  let slot = state.freed.shift();
  if (slot === undefined) {
    const interval = 1000 / rate.perSecond;
    const tail = Math.max(state.tat, now);
    slot = Math.max(now, tail - (rate.burst - 1) * interval);
    state.tat = tail + interval;
  }
  const heldBy = (tenant: string) => state.held.get(tenant) ?? 0;
  const taken = slotToTake(state.reserved, place, slot, now + slotDueMs, heldBy);
  if (taken) {
    const holder = state.reserved.get(taken.key)!;
    state.reserved.set(taken.key, { ...holder, slot, moved: true });
    slot = taken.slot;
  }
  state.reserved.set(key, { slot, place, moved: false });
  state.held.set(place.tenant, heldBy(place.tenant) + 1);
  return slot;
}

/** `key`'s slot is gone from the line: taken, cancelled or stale. */
function leave(state: LineState, key: string): SlotHolder | undefined {
  const holder = state.reserved.get(key);
  if (!holder) return undefined;
  state.reserved.delete(key);
  const left = (state.held.get(holder.place.tenant) ?? 1) - 1;
  if (left > 0) state.held.set(holder.place.tenant, left);
  else state.held.delete(holder.place.tenant);
  return holder;
}

export function cancelSlot(state: LineState, now: number, key: string): void {
  const holder = leave(state, key);
  if (holder === undefined || holder.slot <= now) return;
  state.freed.push(holder.slot);
  state.freed.sort((a, b) => a - b);
}

function sweep(state: LineState, now: number): void {
  if (now - state.sweptAt < 10_000) return;
  state.sweptAt = now;
  for (const [key, { slot }] of state.reserved) {
    if (slot < now - staleSlotMs) leave(state, key);
  }
}

/** For one process; `now` is injectable (ms). */
export function localPermitLine(rate: LineRate, now: () => number = () => Date.now()): PermitLine {
  const state = emptyLine();
  return {
    reserve: (key, place) =>
      Promise.resolve(Math.max(0, Math.ceil(reserveSlot(state, now(), key, rate, place) - now()))),
    taken: (key) => Promise.resolve(void leave(state, key)),
    cancel: (key) => Promise.resolve(cancelSlot(state, now(), key)),
  };
}

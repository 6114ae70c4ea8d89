/**
 * A provider's limit as it publishes it: units per second, and how many may go back to back.
 */
export interface ProviderLimit {
  perSecond: number;
  burst: number;
}

/**
 * Where the relayer spends a provider's limit, asked at the moment of each call: it answers "now"
 * (and counts the units) or "not before N ms", and never queues. Deciding at the moment of the
 * call, not reserving a later slot, is what keeps the bound however late the caller comes back.
 */
export interface SpendWindow {
  /**
   * 0 when `units` may go now (they are counted); otherwise the ms until they may. `owner`: the
   * caller heads a line, and reserves its time when told to wait (see Reservation); `marginMs`:
   * this process's measured delivery margin (see minMarginMs).
   */
  take(units: number, owner?: string, marginMs?: number): Promise<number>;
  /**
   * The provider refused a call of `units` for its rate: the rate in use is cut (for every
   * process sharing the window) and nothing goes for `retryAfterMs` when the provider said so.
   */
  refused(units: number, retryAfterMs?: number): Promise<void>;
}

/**
 * How much later than the decision a call may reach the provider, at most, beyond the others'
 * delay: the network and a busy event loop. The window is kept over this much more than a second,
 * and the burst this much of the rate short, so calls bunched by it still fit. This is the margin
 * assumed until one is measured, and the one the permit line's pace is set by.
 */
export const deliveryJitterMs = 25;
export const windowMs = 1000 + deliveryJitterMs;

/**
 * The margin in use follows the delay measured between a decision and its call leaving the
 * process (delivery-margin.ts), the largest any process sharing the window reported, fading by
 * `marginFadePerSecond` ms a second once no process reports it; within these bounds. The network
 * to the provider bunches calls too, which no process can measure: the assumed 25 ms stay its
 * share (at 10, packed windows met 2-4 refusals of sends a cell against a rolling second). Past
 * 50 ms a provider's bucket of two calls keeps the margin in every gap (see scaled): two
 * processes on busy cores measured 100 ms and more, and their sends at 20/s fell to a third.
 */
export const minMarginMs = deliveryJitterMs;
export const maxMarginMs = 50;
export const marginFadePerSecond = 1;

const windowOf = (state: WindowState) => 1000 + state.marginMs;

/**
 * Learning the provider's real limit from its refusals. A refusal cuts the rate in use to
 * `cutFactor` of what the window held when it came (the rate the provider refused, at most the
 * rate in use), at most once per `cutSpacingMs`, so the refusals of one overrun cut once; that
 * rate is remembered as the ceiling. The rate climbs back fast (`climbPerSecond` of the limit)
 * to `settleShare` of the ceiling, then probes above it slowly (`probePerSecond`, doubling every
 * `probeDoublingMs` while no refusal comes), so a limit set too high settles under the real one
 * instead of sawing against it (the next refusal comes after a probe of about 30 s), and a
 * ceiling the provider does not confirm is climbed past within two minutes.
 */
export const cutFactor = 0.85;
export const cutSpacingMs = 500;
export const climbPerSecond = 0.05;
export const settleShare = 0.97;
export const probePerSecond = 0.0002;
export const probeDoublingMs = 15_000;
export const minScale = 1 / 16;
/**
 * A refusal teaches a rate when the window held at least this share of the rate in use, or half
 * of it and the refusal is this many in one streak.
 */
export const trustedUse = 0.85;
export const trustedStreak = 3;

/**
 * The call at the head of a line that must wait for room: `units` at `at`. Calls behind it (in
 * any process sharing the window) go before it only where they do not delay it: conservative
 * backfilling, so a 250-unit send waiting for room leaves the room it cannot use to smaller reads.
 */
export interface Reservation {
  owner: string;
  units: number;
  at: number;
}

/** A reservation whose owner has not come back this long after its time is dropped. */
export const staleReservationMs = 1000;

export interface WindowState {
  /** What was spent within the window, oldest first. */
  spends: { at: number; units: number }[];
  total: number;
  /** GCRA's theoretical arrival time: where the burst bound stands. */
  tat: number;
  /** The share of the limit in use (1 until the provider refuses), and when it was last moved. */
  scale: number;
  scaledAt: number;
  lastCutAt: number;
  /** The share of the limit the provider last refused (1 until it refuses). */
  ceiling: number;
  /** The refusals and their units since `streakAt`, a window ago at most. */
  streakRefusals: number;
  refusedUnits: number;
  streakAt: number;
  /** The delivery margin in use (ms), and when it was last reported. */
  marginMs: number;
  marginAt: number;
  pausedUntil: number;
  reservation?: Reservation;
}

export const emptyWindow = (): WindowState => ({
  spends: [],
  total: 0,
  tat: 0,
  scale: 1,
  scaledAt: 0,
  lastCutAt: Number.NEGATIVE_INFINITY,
  ceiling: 1,
  streakRefusals: 0,
  refusedUnits: 0,
  streakAt: Number.NEGATIVE_INFINITY,
  marginMs: deliveryJitterMs,
  marginAt: 0,
  pausedUntil: 0,
});

/**
 * The decision for `units` at `now` (ms), under two bounds that together hold whichever way the
 * provider counts: a sliding log — never more than perSecond units within any window — and GCRA
 * (golang.org/x/time/rate's algorithm) for the burst — never more than `burst` back to back, the
 * rest at the rate, which is what a provider's token bucket allows. Either alone is caught out: a
 * bucket of rate Q and burst B lets B + Q through in one second, which a rolling-second provider
 * refuses; a rolling second alone lets Q go back to back. Sustained, the window allows
 * 1000 ÷ windowMs of the rate (0.976). `state` is updated when the units are spent.
 *
 * `owner` names the head of a line: told to wait, it reserves its time (unless another holds the
 * reservation), and any other call goes only where it leaves the reserved call's time unmoved.
 */
export function decideSpend(
  state: WindowState,
  now: number,
  units: number,
  limit: ProviderLimit,
  owner?: string,
  marginMs?: number,
): number {
  climb(state, now);
  if (marginMs !== undefined) reportMargin(state, now, marginMs);
  if (state.pausedUntil > now) return Math.ceil(state.pausedUntil - now);
  while (state.spends.length > 0 && state.spends[0]!.at <= now - windowOf(state)) {
    state.total -= state.spends.shift()!.units;
  }
  const held = state.reservation;
  if (held && held.at < now - staleReservationMs) delete state.reservation;
  const reserved = ownReservation(state.reservation, owner, units) ? undefined : state.reservation;
  const wait = waitAt(state, now, units, limit);
  if (wait === 0 && !(reserved && delays(state, now, units, limit, reserved))) {
    state.tat = Math.max(state.tat, now) + units * scaled(limit, state, units).unitMs;
    state.spends.push({ at: now, units });
    state.total += units;
    if (owner !== undefined && ownReservation(state.reservation, owner, units)) {
      delete state.reservation;
    }
    return 0;
  }
  if (!reserved) {
    if (owner !== undefined) state.reservation = { owner, units, at: now + wait };
    return Math.ceil(wait);
  }
  // Behind another's reservation: ask again when the window next changes, or at its time.
  const nextExpiry =
    state.spends.length > 0 ? state.spends[0]!.at + windowOf(state) - now : Infinity;
  return Math.max(1, Math.ceil(Math.max(wait, Math.min(nextExpiry, reserved.at - now))));
}

/**
 * Whether `owner` may act as the reservation's holder: it holds it, or its call is heavier than
 * the one holding it (sends reserve before reads, which find room around them soon).
 */
const ownReservation = (held: Reservation | undefined, owner: string | undefined, units: number) =>
  owner !== undefined && (held === undefined || held.owner === owner || units > held.units);

/** The ms `units` would wait at `at` (≥ now), without changing `state`. */
function waitAt(state: WindowState, at: number, units: number, limit: ProviderLimit): number {
  const { perSecond, burst, unitMs } = scaled(limit, state, units);
  const spends = state.spends.filter((spend) => spend.at > at - windowOf(state));
  const total = spends.reduce((sum, spend) => sum + spend.units, 0);
  let windowWait = 0;
  // A call heavier than the whole limit goes alone in the window, or never would.
  if (total > 0 && total + units > perSecond) {
    let remaining = total;
    for (const spend of spends) {
      remaining -= spend.units;
      if (remaining === 0 || remaining + units <= perSecond) {
        windowWait = spend.at + windowOf(state) - at;
        break;
      }
    }
  }
  const nextTat = Math.max(state.tat, at) + units * unitMs;
  return Math.max(0, windowWait, nextTat - burst * unitMs - at);
}

/** Whether spending `units` now would make `reserved` wait longer at its time. */
function delays(
  state: WindowState,
  now: number,
  units: number,
  limit: ProviderLimit,
  reserved: Reservation,
): boolean {
  const at = Math.max(now, reserved.at);
  const before = waitAt(state, at, reserved.units, limit);
  const after: WindowState = {
    ...state,
    spends: [...state.spends, { at: now, units }],
    tat: Math.max(state.tat, now) + units * scaled(limit, state, units).unitMs,
  };
  return waitAt(after, at, reserved.units, limit) > before;
}

/** A provider's refusal of `units` at `now`: the cut, the provider's bucket taken as empty, its pause. */
export function recordRefusal(
  state: WindowState,
  now: number,
  units: number,
  limit: ProviderLimit,
  retryAfterMs?: number,
): void {
  climb(state, now);
  // Refusals within a window of the streak's first: the provider let the rest of the window
  // through. A streak lasts a window at most, so what it subtracts is still in the window.
  const streakBegins = now - state.streakAt >= windowOf(state);
  if (streakBegins) {
    state.refusedUnits = 0;
    state.streakAt = now;
  }
  // What the provider counted is at least what went through and less than that and this call.
  const counted =
    state.spends
      .filter((spend) => spend.at > now - windowOf(state))
      .reduce((sum, spend) => sum + spend.units, 0) - state.refusedUnits;
  state.refusedUnits += units;
  const used = counted / limit.perSecond;
  // Refused while using less than the rate allowed, once or twice: a burst or a late call, not
  // the provider's rate (at a process's start, calls leave late): it cuts, and teaches nothing.
  const before = streakBegins ? state.scale : state.ceiling;
  state.streakRefusals = streakBegins ? 1 : state.streakRefusals + 1;
  const repeated = state.streakRefusals >= trustedStreak && used >= before / 2;
  if (used >= before * trustedUse || repeated) {
    state.ceiling = Math.min(before, used);
  }
  if (now - state.lastCutAt >= cutSpacingMs) {
    state.scale = Math.max(minScale, Math.min(state.scale, state.ceiling) * cutFactor);
    state.lastCutAt = now;
  } else state.scale = Math.max(minScale, Math.min(state.scale, state.ceiling * cutFactor));
  const { burst, unitMs } = scaled(limit, state, units);
  // The provider had nothing left: what goes next goes at the rate, earned from now.
  state.tat = Math.max(state.tat, now + burst * unitMs);
  if (retryAfterMs !== undefined)
    state.pausedUntil = Math.max(state.pausedUntil, now + retryAfterMs);
}

/** Fast back to just under the ceiling; above it, a probe that quickens while no refusal comes. */
function climb(state: WindowState, now: number): void {
  if (state.scale < 1 && now > state.scaledAt) {
    const seconds = (now - state.scaledAt) / 1000;
    const settled = state.ceiling * settleShare;
    if (state.scale < settled) {
      state.scale = Math.min(settled, state.scale + climbPerSecond * seconds);
    } else {
      const quickening = 2 ** ((now - state.lastCutAt) / probeDoublingMs);
      state.scale = Math.min(1, state.scale + probePerSecond * quickening * seconds);
      state.ceiling = Math.max(state.ceiling, state.scale);
    }
  }
  state.scaledAt = Math.max(state.scaledAt, now);
}

/**
 * The limit in use: scaled after refusals; the burst no more than a second's worth, less what the
 * delivery jitter can bunch — at least one unit (a provider's bucket of 2 sends spent to its last
 * token turns a few ms into 429s). A burst too small to keep that much (a provider's burst of 1)
 * keeps it in every call's gap instead: the interval grows by the jitter.
 */
function scaled(
  limit: ProviderLimit,
  { scale, marginMs }: Pick<WindowState, 'scale' | 'marginMs'>,
  units: number,
) {
  const perSecond = limit.perSecond * scale;
  const keptForJitter = Math.max(1, (perSecond * marginMs) / 1000);
  const burst = Math.min(limit.burst * scale, perSecond) - keptForJitter;
  if (burst >= units) return { perSecond, burst, unitMs: 1000 / perSecond };
  return { perSecond, burst: units, unitMs: 1000 / perSecond + marginMs / units };
}

/** A process's measured margin: the window's grows to it at once and fades to it slowly. */
function reportMargin(state: WindowState, now: number, marginMs: number): void {
  const faded = state.marginMs - ((now - state.marginAt) * marginFadePerSecond) / 1000;
  const reported = Math.min(maxMarginMs, Math.max(minMarginMs, marginMs));
  state.marginMs = Math.max(reported, Math.min(state.marginMs, faded));
  state.marginAt = now;
}

/**
 * What the window lets through sustained, in calls of one unit per second: the rolling window's
 * share of the limit, or less where every gap keeps the jitter. A line that hands out permits
 * for the window's sends must not go faster, or the sends it lets start pile up at the window.
 */
export function sustainedPerSecond(limit: ProviderLimit): number {
  const assumed = { scale: 1, marginMs: deliveryJitterMs };
  return Math.min((limit.perSecond * 1000) / windowMs, 1000 / scaled(limit, assumed, 1).unitMs);
}

/** For one process; `now` is injectable (ms, monotonic). */
export function localSpendWindow(
  limit: ProviderLimit,
  now: () => number = () => performance.now(),
): SpendWindow {
  const state = emptyWindow();
  return {
    take: (units, owner, marginMs) =>
      Promise.resolve(decideSpend(state, now(), units, limit, owner, marginMs)),
    refused: (units, retryAfterMs) =>
      Promise.resolve(recordRefusal(state, now(), units, limit, retryAfterMs)),
  };
}

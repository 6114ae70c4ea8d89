import { climb, recordRefusal } from './refusal-learning';
import {
  deliveryJitterMs,
  emptyWindow,
  moveSpend,
  reportMargin,
  scaled,
  staleReservationMs,
  unitsOf,
  windowMs,
  windowOf,
  type ProviderLimit,
  type Reservation,
  type WindowState,
} from './window-state';

/**
 * Where the relayer spends a provider's limit, asked at the moment of each call: it answers "now"
 * (and counts the units) or "not before N ms", and never queues. Deciding at the moment of the
 * call, not reserving a later slot, is what keeps the bound however late the caller comes back.
 */
export interface SpendWindow {
  /**
   * 0 when `units` may go now (they are counted); otherwise the ms until they may. `owner`: the
   * caller heads a line, and reserves its time when told to wait (see Reservation); `marginMs`:
   * this process's measured delivery margin (see minMarginMs); `id`: names the spend for leftLate.
   */
  take(units: number, owner?: string, marginMs?: number, id?: string): Promise<number>;
  /** The call that spent `units` as `id` left `lateMs` later than its margin covered. */
  leftLate(id: string, units: number, lateMs: number): Promise<void>;
  /**
   * The provider refused a call of `units` for its rate: the rate in use is cut (for every
   * process sharing the window) and nothing goes for `retryAfterMs` when the provider said so.
   */
  refused(units: number, retryAfterMs?: number): Promise<void>;
}

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
  id?: string,
): number {
  climb(state, now);
  if (marginMs !== undefined) reportMargin(state, now, marginMs);
  if (state.pausedUntil > now) return Math.ceil(state.pausedUntil - now);
  while (state.spends.length > 0 && state.spends[0]!.at <= now - windowOf(state)) {
    state.spends.shift();
  }
  const held = state.reservation;
  if (held && held.at < now - staleReservationMs) delete state.reservation;
  const reserved = ownReservation(state.reservation, owner, units) ? undefined : state.reservation;
  const wait = waitAt(state, now, units, limit);
  if (wait === 0 && !(reserved && delays(state, now, units, limit, reserved))) {
    state.tat = Math.max(state.tat, now) + units * scaled(limit, state, units).unitMs;
    state.spends.push(id === undefined ? { at: now, units } : { at: now, units, id });
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
  const total = unitsOf(spends);
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
    take: (units, owner, marginMs, id) =>
      Promise.resolve(decideSpend(state, now(), units, limit, owner, marginMs, id)),
    leftLate: (id, _units, lateMs) => Promise.resolve(moveSpend(state, id, lateMs, limit)),
    refused: (units, retryAfterMs) =>
      Promise.resolve(recordRefusal(state, now(), units, limit, retryAfterMs)),
  };
}

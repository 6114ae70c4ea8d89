// The state a spend window keeps, the limit in use and its delivery margin.

/**
 * A provider's limit as it publishes it: units per second, and how many may go back to back.
 */
export interface ProviderLimit {
  perSecond: number;
  burst: number;
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
 * share. Past 50 ms a provider's bucket of two calls would keep the margin in every gap (see
 * scaled), and a busy process's sends would crawl (docs/benchmark.md, the quota's last mile).
 */
export const minMarginMs = deliveryJitterMs;
export const maxMarginMs = 50;
export const marginFadePerSecond = 1;

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

/** Units spent at `at`; `id`: the caller's name for them, to move them if their call left late. */
export interface Spend {
  at: number;
  units: number;
  id?: string;
}

export interface WindowState {
  /** What was spent within the window, oldest first. */
  spends: Spend[];
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

/** The window's length in use: a second and the margin. */
export const windowOf = (state: WindowState): number => 1000 + state.marginMs;

/** The units of `spends`. */
export const unitsOf = (spends: readonly { units: number }[]): number =>
  spends.reduce((sum, spend) => sum + spend.units, 0);

/**
 * The limit in use: scaled after refusals; the burst no more than a second's worth, less what the
 * delivery jitter can bunch — at least one unit (a provider's bucket of 2 sends spent to its last
 * token turns a few ms into 429s). A burst too small to keep that much (a provider's burst of 1)
 * keeps it in every call's gap instead: the interval grows by the jitter.
 */
export function scaled(
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

/**
 * The call that spent `id` left the process `lateMs` later than its margin covered: its spend
 * counts that much later, so the window's second after it runs from when the provider can have
 * seen it, however long the call waited for a socket (a margin covers the usual spread, not one
 * stalled call). The burst bound too: the next call keeps its interval from when this one left,
 * as a provider's bucket of two sends refills from then.
 */
export function moveSpend(
  state: WindowState,
  id: string,
  lateMs: number,
  limit: ProviderLimit,
): void {
  if (lateMs <= 0) return;
  const index = state.spends.findIndex((spend) => spend.id === id);
  if (index === -1) return;
  const [spend] = state.spends.splice(index, 1);
  const moved = { ...spend!, at: spend!.at + lateMs };
  const after = state.spends.findIndex((other) => other.at > moved.at);
  state.spends.splice(after === -1 ? state.spends.length : after, 0, moved);
  const { unitMs } = scaled(limit, state, moved.units);
  state.tat = Math.max(state.tat, moved.at + moved.units * unitMs);
}

/** A process's measured margin: the window's grows to it at once and fades to it slowly. */
export function reportMargin(state: WindowState, now: number, marginMs: number): void {
  const faded = state.marginMs - ((now - state.marginAt) * marginFadePerSecond) / 1000;
  const reported = Math.min(maxMarginMs, Math.max(minMarginMs, marginMs));
  state.marginMs = Math.max(reported, Math.min(state.marginMs, faded));
  state.marginAt = now;
}

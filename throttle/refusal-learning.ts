import { scaled, unitsOf, windowOf, type ProviderLimit, type WindowState } from './window-state';

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
 * A provider's refusal of `units` at `now`: what it teaches, the cut, the provider's bucket taken
 * as empty, its pause.
 */
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
    unitsOf(state.spends.filter((spend) => spend.at > now - windowOf(state))) - state.refusedUnits;
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
export function climb(state: WindowState, now: number): void {
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

/**
 * How a provider counts its limit, as providers do: a token bucket of `burst` units refilled at
 * `perSecond` (what our spend window's burst bound models), or a rolling second — never more than
 * `perSecond` units within any 1,000 ms, whatever was quiet before (what a token bucket is caught
 * out by). Refused calls are not counted.
 */
export type ProviderWindow = 'bucket' | 'sliding';
export const providerWindows: readonly ProviderWindow[] = ['bucket', 'sliding'];

export interface ProviderCount {
  /** Whether `units` arriving at `now` (ms) fit; if so, they are counted. */
  admit(now: number, units: number): boolean;
}

export function providerCount(
  window: ProviderWindow,
  { perSecond, burst }: { perSecond: number; burst: number },
): ProviderCount {
  if (window === 'bucket') {
    let tokens = burst;
    let refilledAt = Number.NEGATIVE_INFINITY;
    return {
      admit(now, units) {
        tokens = Math.min(burst, tokens + ((now - refilledAt) / 1000) * perSecond);
        refilledAt = now;
        // A hair of float error in the refill is not a refusal.
        if (units > tokens + 1e-9) return false;
        tokens -= units;
        return true;
      },
    };
  }
  const arrivals: { at: number; units: number }[] = [];
  let total = 0;
  return {
    admit(now, units) {
      while (arrivals.length > 0 && arrivals[0]!.at <= now - 1000) total -= arrivals.shift()!.units;
      if (total + units > perSecond) return false;
      arrivals.push({ at: now, units });
      total += units;
      return true;
    },
  };
}

import { unsafeUniformIntDistribution, xoroshiro128plus } from 'pure-rand';
import { providerCount, providerWindows } from '../harness/stack/provider-count';
import { recordRefusal } from '../../throttle/refusal-learning';
import { decideSpend, localSpendWindow } from '../../throttle/spend-window';
import { deliveryJitterMs, emptyWindow, type ProviderLimit } from '../../throttle/window-state';

/** Alchemy-like weights: most reads 10–26, a send 250. */
const weights = [10, 20, 20, 20, 26, 60, 250];

interface Run {
  decidedAt: number[];
  units: number[];
  refused: number;
}

/**
 * A line that always has `depth` calls waiting (random weights), against a provider counting
 * `window` whose real limit is `real` (the window is configured with `limit`): the head asks as
 * the line's owner, the others behind it as backfills (rpc-budget.ts's line); each call reaches
 * the provider 0 to deliveryJitterMs after its decision, and a refusal is fed back as the metered
 * transport does. Pure simulation: the clock is the loop's.
 */
function saturate(
  seed: number,
  limit: ProviderLimit,
  real: ProviderLimit,
  window: 'bucket' | 'sliding',
  seconds: number,
  depth = 1,
): Run {
  const random = xoroshiro128plus(seed);
  const state = emptyWindow();
  const provider = providerCount(window, real);
  const run: Run = { decidedAt: [], units: [], refused: 0 };
  // Arrivals are judged in arrival order: calls are decided in order, delivered jittered.
  const arrivals: { at: number; units: number }[] = [];
  const nextWeight = () => weights[unsafeUniformIntDistribution(0, weights.length - 1, random)]!;
  const line = Array.from({ length: depth }, nextWeight);
  let now = 0;
  while (now < seconds * 1000) {
    let nextAskMs = Infinity;
    for (let index = 0; index < line.length; index++) {
      const units = line[index]!;
      const waitMs = decideSpend(state, now, units, limit, index === 0 ? 'head' : undefined);
      if (waitMs > 0) {
        nextAskMs = Math.min(nextAskMs, waitMs);
        continue;
      }
      const delay = unsafeUniformIntDistribution(0, deliveryJitterMs * 1000, random) / 1000;
      arrivals.push({ at: now + delay, units });
      run.decidedAt.push(now);
      run.units.push(units);
      line.splice(index--, 1);
    }
    // Deliver what has arrived by now, in arrival order, and feed refusals back.
    arrivals.sort((a, b) => a.at - b.at);
    while (arrivals.length > 0 && arrivals[0]!.at <= now) {
      const arrival = arrivals.shift()!;
      if (!provider.admit(arrival.at, arrival.units)) {
        run.refused++;
        recordRefusal(state, now, arrival.units, limit);
      }
    }
    // The line fills again a moment behind (0–3 ms) what went.
    if (line.length < depth) {
      while (line.length < depth) line.push(nextWeight());
      now += unsafeUniformIntDistribution(0, 3, random);
    } else {
      // On to the next ask, or the next arrival's answer if that comes first.
      const nextArrival = arrivals.length > 0 ? Math.max(now + 0.001, arrivals[0]!.at) : Infinity;
      now = Math.min(now + nextAskMs, nextArrival);
    }
  }
  return run;
}

/** Units spent from `fromMs` on, per second, as a share of `perSecond`. */
function usedAfter(run: Run, fromMs: number, perSecond: number): number {
  let units = 0;
  run.decidedAt.forEach((at, index) => (units += at >= fromMs ? run.units[index]! : 0));
  const lastAt = run.decidedAt[run.decidedAt.length - 1]!;
  return (units * 1000) / (lastAt - fromMs) / perSecond;
}

const seeds = Array.from({ length: 40 }, (_, index) => 1000 + index * 7919);

describe('the spend window (a rolling second and a burst, decided at the moment of the call)', () => {
  it('lets the burst less its jitter go back to back, then the rate; says how long to wait', () => {
    const state = emptyWindow();
    const limit = { perSecond: 10, burst: 10 };
    // 10 less a unit kept for jitter (25 ms of the rate would be a quarter of one): 9 go
    // together, the tenth when the bucket has it.
    const answers = Array.from({ length: 10 }, () => decideSpend(state, 0, 1, limit));
    expect(answers).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 100]);
    expect(decideSpend(state, 100, 1, limit)).toBe(0);
    // Ten units spent within the window: the next waits until the first leaves it (at 1,025 ms).
    expect(decideSpend(state, 200, 1, limit)).toBe(825);
    expect(decideSpend(state, 1025, 1, limit)).toBe(0);
  });

  it('with a burst of 1, keeps the jitter in every gap: one call per interval + 25 ms', () => {
    const state = emptyWindow();
    const limit = { perSecond: 5, burst: 1 };
    expect(decideSpend(state, 0, 1, limit)).toBe(0);
    expect(decideSpend(state, 0, 1, limit)).toBe(225);
    expect(decideSpend(state, 225, 1, limit)).toBe(0);
  });

  it('lets a call heavier than the limit go alone in an empty window', () => {
    const state = emptyWindow();
    expect(decideSpend(state, 0, 500, { perSecond: 300, burst: 300 })).toBe(0);
    expect(decideSpend(state, 10, 10, { perSecond: 300, burst: 300 })).toBeGreaterThan(1000);
  });

  it.each(providerWindows)(
    'never refused by a provider counting a %s, and fills ≥ 0.88 of the limit with Alchemy-like weights (40 seeds)',
    (window) => {
      for (const seed of seeds) {
        for (const limit of [
          { perSecond: 1500, burst: 1500 },
          { perSecond: 1500, burst: 300 },
        ]) {
          const run = saturate(seed, limit, limit, window, 60);
          expect({ seed, limit, refused: run.refused }).toEqual({ seed, limit, refused: 0 });
          // 0.976 at most (the window's jitter margin), less what a heavy call at the front
          // leaves unused while it waits for room, and the caller's lateness, which a rolling
          // window repeats a second later (0.90 at the worst seed). After the first second: a
          // full bucket at the start is the provider's to give.
          expect(usedAfter(run, 1000, limit.perSecond)).toBeGreaterThanOrEqual(0.88);
        }
      }
    },
  );

  it.each(providerWindows)(
    'a line of eight packs reads around a waiting send: never refused by a %s, ≥ 0.95 of the limit (40 seeds)',
    (window) => {
      const used: number[] = [];
      for (const seed of seeds) {
        const limit = { perSecond: 1500, burst: 1500 };
        const run = saturate(seed, limit, limit, window, 60, 8);
        expect({ seed, refused: run.refused }).toEqual({ seed, refused: 0 });
        used.push(usedAfter(run, 1000, limit.perSecond));
      }
      expect(Math.min(...used)).toBeGreaterThanOrEqual(0.95);
    },
  );

  it('a backfilled call never delays the reserved one: the head goes at the time it was given', () => {
    for (const seed of seeds) {
      const random = xoroshiro128plus(seed);
      const limit = { perSecond: 1500, burst: 1500 };
      const state = emptyWindow();
      let now = 0;
      for (let checked = 0; checked < 200;) {
        const head = weights[unsafeUniformIntDistribution(0, weights.length - 1, random)]!;
        const headWait = decideSpend(state, now, head, limit, 'head');
        const reservedAt = now + headWait;
        now += unsafeUniformIntDistribution(0, 3, random);
        if (headWait === 0) continue; // it went at once
        // Reads behind it ask at random moments until its time; then it asks again.
        while (now < reservedAt) {
          decideSpend(state, now, weights[unsafeUniformIntDistribution(0, 5, random)]!, limit);
          now = Math.min(reservedAt, now + unsafeUniformIntDistribution(0, 40, random));
        }
        expect({ seed, wait: decideSpend(state, now, head, limit, 'head') }).toEqual({
          seed,
          wait: 0,
        });
        checked++;
      }
    }
  });

  it("a send takes a waiting read's reservation over; a lighter head waits behind it", () => {
    const limit = { perSecond: 300, burst: 300 };
    const state = emptyWindow();
    expect(decideSpend(state, 0, 250, limit)).toBe(0);
    expect(decideSpend(state, 0, 60, limit, 'reader')).toBeGreaterThan(1000);
    expect(decideSpend(state, 0, 250, limit, 'sender')).toBeGreaterThan(1000);
    expect(state.reservation).toMatchObject({ owner: 'sender', units: 250 });
    decideSpend(state, 0, 60, limit, 'reader');
    expect(state.reservation).toMatchObject({ owner: 'sender' });
  });

  it('the margin is the largest a process reports, at once, fading slowly; its window is a second and the margin', () => {
    const limit = { perSecond: 10, burst: 10 };
    const state = emptyWindow();
    expect(decideSpend(state, 0, 10, limit, undefined, 40)).toBe(0);
    expect(state.marginMs).toBe(40);
    // Another process reports 25 a second later: the window keeps nearly 40 …
    expect(decideSpend(state, 1000, 1, limit, undefined, 25)).toBe(39);
    expect(state.marginMs).toBeCloseTo(39);
    // … and the 39 ms after a full second still count.
    expect(decideSpend(state, 1030, 1, limit, undefined, 25)).toBeGreaterThan(0);
    // Reported over and under its bounds: 50 at most, 25 (the network's share) at least.
    decideSpend(state, 2000, 1, limit, undefined, 900);
    expect(state.marginMs).toBe(50);
    decideSpend(state, 1_000_000, 1, limit, undefined, 1);
    expect(state.marginMs).toBe(25);
  });

  it('never spends more than the limit in any window of a second at decision time, nor more than the burst at once', () => {
    for (const seed of seeds) {
      const limit = { perSecond: 400, burst: 300 };
      const { decidedAt, units } = saturate(seed, limit, limit, 'sliding', 10);
      for (let first = 0, last = 0, sum = 0; last < decidedAt.length; last++) {
        sum += units[last]!;
        while (decidedAt[last]! - decidedAt[first]! >= 1000) sum -= units[first++]!;
        expect(sum).toBeLessThanOrEqual(limit.perSecond);
      }
      const atOnce = new Map<number, number>();
      decidedAt.forEach((at, index) => atOnce.set(at, (atOnce.get(at) ?? 0) + units[index]!));
      expect(Math.max(...atOnce.values())).toBeLessThanOrEqual(300);
    }
  });

  it.each(providerWindows)(
    'configured at twice a %s provider’s real limit: settles under it, ≤ 1% of calls refused, ≥ 0.9 of the real limit used after 30 s (40 seeds)',
    (window) => {
      for (const seed of seeds) {
        const limit = { perSecond: 1500, burst: 1500 };
        const real = { perSecond: 750, burst: 750 };
        const run = saturate(seed, limit, real, window, 300, 8);
        const calls = run.units.length;
        // Most refusals are the first burst's, decided before the first answer came; then the
        // rate settles at 0.97 of the rate the provider refused, times the window's 0.976.
        const outcome = {
          seed,
          refusedUnder: run.refused / calls <= 0.01,
          usedOver: usedAfter(run, 30_000, real.perSecond) >= 0.9,
        };
        expect(outcome).toEqual({ seed, refusedUnder: true, usedOver: true });
      }
    },
  );

  it('a refusal cuts the rate gently, once per overrun, honours Retry-After; the rate climbs back fast, then probes', () => {
    const limit = { perSecond: 100, burst: 100 };
    const state = emptyWindow();
    // Refused with nothing spent: a burst or jitter, not the provider's rate (no ceiling).
    recordRefusal(state, 0, 1, limit);
    recordRefusal(state, 100, 1, limit);
    expect(state.scale).toBeCloseTo(0.85);
    // Half a second later, climbed 0.025 meanwhile: cut again.
    recordRefusal(state, 600, 1, limit, 2000);
    expect(state.scale).toBeCloseTo(0.875 * 0.85);
    expect(decideSpend(state, 600, 1, limit)).toBe(2000);
    // 0.05 of the limit a second up to 0.97 of the ceiling, then slowly above it.
    decideSpend(state, 10_600, 1, limit);
    expect(state.scale).toBeCloseTo(0.97);
    decideSpend(state, 100_600, 1, limit);
    expect(state.scale).toBeGreaterThan(0.98);
    decideSpend(state, 300_600, 1, limit);
    expect(state.scale).toBe(1);
  });

  /** A window of 100/s that spent one unit every 10 ms until `refusedAt`, then was refused. */
  function refusedAfterSpending(refusedAt: number, refusals = 1) {
    const limit = { perSecond: 100, burst: 100 };
    const state = emptyWindow();
    for (let at = 0; at < refusedAt; at += 10) decideSpend(state, at, 1, limit);
    for (let n = 0; n < refusals; n++) recordRefusal(state, refusedAt + n, 1, limit);
    return { state, limit };
  }

  it('a refusal with the window full remembers the rate refused, and the rate settles just under it', () => {
    // 90 units in the window when refused: the provider's limit is about 90/s.
    const { state, limit } = refusedAfterSpending(900);
    expect(state.ceiling).toBeCloseTo(0.9);
    expect(state.scale).toBeCloseTo(0.765);
    decideSpend(state, 10_900, 1, limit);
    expect(state.scale).toBeCloseTo(0.873, 2);
  });

  it('one or two refusals with the window under 0.85 full teach no rate; three do, and a rate the provider never confirms is climbed past within two minutes', () => {
    const { state: stray } = refusedAfterSpending(600, 2);
    expect(stray.ceiling).toBe(1);
    expect(stray.scale).toBeCloseTo(0.85);

    // 60 units in the window, two of them refused before: 58 went through.
    const { state, limit } = refusedAfterSpending(600, 3);
    expect(state.ceiling).toBeCloseTo(0.58);
    for (let at = 1600; at <= 60_600; at += 1000) decideSpend(state, at, 1, limit);
    expect(state.scale).toBeLessThan(0.7);
    for (let at = 61_600; at <= 120_600; at += 1000) decideSpend(state, at, 1, limit);
    expect(state.scale).toBe(1);
  });

  it('the same through the window’s own interface: a Retry-After holds the next call back', async () => {
    const window = localSpendWindow({ perSecond: 100, burst: 100 }, () => 0);
    await window.refused(1, 2000);
    await expect(window.take(1)).resolves.toBe(2000);
  });

  it('a spend whose call left late counts from when it left: the second after it runs from then', async () => {
    let now = 0;
    const window = localSpendWindow({ perSecond: 300, burst: 300 }, () => now);
    expect(await window.take(250, undefined, undefined, 'late')).toBe(0);
    // Left 100 ms after the answer: at 1,030 ms the provider has seen it for 930 ms only.
    await window.leftLate('late', 250, 100);
    now = 1030;
    expect(await window.take(250)).toBe(95);
    now = 1125;
    expect(await window.take(250)).toBe(0);
    // An unknown id (already out of the window) moves nothing.
    await window.leftLate('gone', 250, 500);
    now = 2160;
    expect(await window.take(50)).toBe(0);
  });

  it('a send that left late keeps the burst bound’s interval from when it left', async () => {
    let now = 0;
    // A provider's bucket of 2 sends at 20 a second: the window keeps one of the two for the
    // jitter, so each send waits 50 ms after the one before.
    const window = localSpendWindow({ perSecond: 20, burst: 2 }, () => now);
    expect(await window.take(1, undefined, undefined, 'late')).toBe(0);
    await window.leftLate('late', 1, 90);
    now = 100;
    expect(await window.take(1)).toBe(40);
  });
});

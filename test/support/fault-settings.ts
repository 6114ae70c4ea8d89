import { randomInt } from 'node:crypto';
import { unsafeUniformIntDistribution, xoroshiro128plus, type RandomGenerator } from 'pure-rand';

const whole = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number (got "${raw}")`);
  return Number(raw);
};

/**
 * The size of the fault suites: CI runs the defaults; a longer local run sets more, e.g.
 * FAULT_INTENTS=1000 FAULT_RUNS=25. FAULT_SEED replays a failure (each suite prints its seed).
 */
export const faultSettings = {
  seed: whole('FAULT_SEED', randomInt(2 ** 31)),
  intents: whole('FAULT_INTENTS', 120),
  runs: whole('FAULT_RUNS', 3),
};

/** Prints the seed first, so a failing run can be replayed with the same faults. */
export function seededRandom(suite: string): { seed: number; below(n: number): number } {
  const { seed } = faultSettings;
  console.log(`${suite}: FAULT_SEED=${seed} FAULT_INTENTS=${faultSettings.intents} replays it`);
  const random: RandomGenerator = xoroshiro128plus(seed);
  return { seed, below: (n) => unsafeUniformIntDistribution(0, n - 1, random) };
}

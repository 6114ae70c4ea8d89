import { randomInt } from 'node:crypto';
import { unsafeUniformIntDistribution, xoroshiro128plus, type RandomGenerator } from 'pure-rand';

/** A whole number from the environment variable `name`, or `fallback` when it is unset. */
export const whole = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number (got "${raw}")`);
  return Number(raw);
};

/**
 * How hard a seeded suite pushes: `npm test` runs each one `quick` (a case that still crosses
 * every fault it names), `npm run test:deep` again `deep` (more intents, more runs: the same
 * properties re-proved on more of the seed's space).
 */
export type Depth = 'quick' | 'deep';

const sizes: Record<Depth, { intents: number; runs: number }> = {
  quick: { intents: 30, runs: 2 },
  deep: { intents: 120, runs: 8 },
};

const seed = whole('FAULT_SEED', randomInt(2 ** 31));

/**
 * The size of a seeded suite at `depth`; FAULT_INTENTS and FAULT_RUNS override both, e.g.
 * FAULT_INTENTS=1000 FAULT_RUNS=25 for a long local run. FAULT_SEED replays a failure (each suite
 * prints its seed).
 */
export const faultSettings = (depth: Depth) => ({
  depth,
  seed,
  intents: whole('FAULT_INTENTS', sizes[depth].intents),
  runs: whole('FAULT_RUNS', sizes[depth].runs),
});

export type FaultSettings = ReturnType<typeof faultSettings>;

/** Prints the seed first, so a failing run can be replayed with the same faults. */
export function seededRandom(
  suite: string,
  settings: FaultSettings = faultSettings('quick'),
): { seed: number; below(n: number): number } {
  const replay = `FAULT_SEED=${settings.seed} FAULT_INTENTS=${settings.intents} FAULT_RUNS=${settings.runs}`;
  console.log(`${suite} (${settings.depth}): ${replay} replays it`);
  const random: RandomGenerator = xoroshiro128plus(settings.seed);
  return { seed: settings.seed, below: (n) => unsafeUniformIntDistribution(0, n - 1, random) };
}

import type { Cell, Result } from './cell';

// With --runs, each cell's figures are the median of its runs: one noisy run neither makes nor
// misses a target.

/** The cell as one run had it, without which run it was. */
function withoutRun(cell: Cell): Cell {
  const same = { ...cell };
  delete same.run;
  return same;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Each numeric figure's median across `runs`, nested ones too: a figure a run did not measure
 * is left out, a method absent from a run's counts (a record within the result) counted as 0
 * there; what is not a number is the first run's.
 */
function medianOf(runs: readonly unknown[], depth = 0): unknown {
  const numbers = runs.filter((value): value is number => typeof value === 'number');
  if (numbers.length > 0) return median(depth > 1 ? runs.map(numberOr0) : numbers);
  const first = runs.find((value) => value !== undefined);
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return first;
  const records = runs as (Record<string, unknown> | undefined)[];
  const keys = new Set(records.flatMap((record) => Object.keys(record ?? {})));
  return Object.fromEntries(
    [...keys].map((key) => [
      key,
      medianOf(
        records.map((record) => record?.[key]),
        depth + 1,
      ),
    ]),
  );
}

const numberOr0 = (value: unknown) => (typeof value === 'number' ? value : 0);

/**
 * One result per cell, each figure the median of its runs. Every run is the same grid in the same
 * order, so a cell's runs are the results `results.length / runs` apart (a timed cell's `intents`
 * is what it submitted, different in each run, so the cell itself cannot be the key).
 */
export function mediansOfRuns(results: readonly Result[], runs: number): Result[] {
  const cellsPerRun = results.length / runs;
  return results.slice(0, cellsPerRun).map((_, index) => {
    const ofCell = Array.from({ length: runs }, (_, run) => results[index + run * cellsPerRun]!);
    const median = medianOf(ofCell) as Result;
    return { ...median, cell: withoutRun(median.cell) };
  });
}

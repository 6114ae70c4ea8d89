import type { Cell, Result } from './cell';

// With --runs, each cell's figures are the median of its runs: one noisy run neither makes nor
// misses a target.

/** The cell's identity across runs: everything but which run it was. */
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

/** One result per cell, in the order cells first ran, each figure the median of its runs. */
export function mediansOfRuns(results: readonly Result[]): Result[] {
  const byCell = new Map<string, Result[]>();
  for (const result of results) {
    const key = JSON.stringify(withoutRun(result.cell));
    byCell.set(key, [...(byCell.get(key) ?? []), result]);
  }
  return [...byCell.values()].map((runs) => {
    return { ...(medianOf(runs) as Result), cell: withoutRun(runs[0]!.cell) };
  });
}

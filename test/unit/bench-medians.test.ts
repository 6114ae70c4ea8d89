import type { Cell, Result } from '../../dev/bench/cell';
import { mediansOfRuns } from '../../dev/bench/medians';

// `npm run bench -- --runs 3`: each cell's figures are the median of its three runs.

const cell = (run: number, intents: number): Cell => ({
  arm: 'B',
  intents,
  quota: 20,
  processes: 1,
  blockTimeSeconds: 0,
  model: 'sends',
  asset: 'native',
  webhooks: 'none',
  providerWindow: 'bucket',
  traces: false,
  workers: 'tsx',
  limitFactor: 1,
  run,
});

const result = (run: number, intents: number, figures: Partial<Result>): Result =>
  ({
    cell: cell(run, intents),
    intentsPerSecond: 0,
    refusedByMethod: {},
    cpuMsPerIntent: { worker: 0, server: 0, anvil: 0 },
    ...figures,
  }) as Result;

describe('the bench: medians of runs', () => {
  it('takes each figure’s median across the runs of a cell, nested counts too, a missing count as 0', () => {
    const [median, ...rest] = mediansOfRuns(
      [
        result(1, 300, { intentsPerSecond: 19, usedMidRun: 0.9, refusedByMethod: { send: 3 } }),
        result(1, 300, { intentsPerSecond: 5 }),
        result(2, 300, { intentsPerSecond: 17, usedMidRun: 0.8 }),
        result(2, 300, { intentsPerSecond: 7 }),
        result(3, 300, { intentsPerSecond: 18, usedMidRun: 0.95, refusedByMethod: { send: 1 } }),
        result(3, 300, { intentsPerSecond: 6 }),
      ],
      3,
    );
    expect(median).toMatchObject({ intentsPerSecond: 18, usedMidRun: 0.9 });
    expect(median!.refusedByMethod).toEqual({ send: 1 });
    expect(median!.cell.run).toBeUndefined();
    expect(rest.map((r) => r.intentsPerSecond)).toEqual([6]);
  });

  it('pairs a timed cell’s runs by their place in the grid, whatever each submitted', () => {
    const medians = mediansOfRuns(
      [
        result(1, 739, { usedAfter30s: 0.808 }),
        result(2, 745, { usedAfter30s: 0.818 }),
        result(3, 742, { usedAfter30s: 0.811 }),
      ],
      3,
    );
    expect(medians).toHaveLength(1);
    expect(medians[0]).toMatchObject({ usedAfter30s: 0.811, cell: { intents: 742 } });
  });
});

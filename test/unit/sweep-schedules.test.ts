import { sweepSchedules, type SweepSettings } from '../../client/sweep-schedules';

const settings: SweepSettings = {
  taskQueue: 'q',
  orphanSweepMs: 60_000,
  finalitySweepMs: 30_000,
  topUpSweepMs: 60_000,
  depositScanMs: 5_000,
  depositSweepMs: 60_000,
  depositScanBlocks: 500,
  treasuryChains: [1, 10],
  depositChains: [10],
};

const byId = (chosen: Partial<SweepSettings>) =>
  Object.fromEntries(
    sweepSchedules({ ...settings, ...chosen }).map((sweep) => [
      sweep.scheduleId,
      [sweep.workflowType, sweep.everyMs, sweep.args[0]],
    ]),
  );

describe('the sweeps a worker ensures', () => {
  it('the fleet’s two, a top-up sweep per treasury chain, a deposit scan and upkeep per factory chain', () => {
    expect(byId({})).toEqual({
      'orphan-sweep@q': ['orphanSweep', 60_000, { olderThanMs: 60_000 }],
      'finality-sweep@q': ['finalitySweep', 30_000, { limit: 500 }],
      'top-up-sweep@q/1': ['topUpSweep', 60_000, { chainId: 1 }],
      'top-up-sweep@q/10': ['topUpSweep', 60_000, { chainId: 10 }],
      'deposit-scan@q/10': [
        'depositScan',
        5_000,
        { chainId: 10, maxBlocks: 500, creditLimit: 500 },
      ],
      'deposit-upkeep@q/10': ['depositUpkeep', 60_000, { chainId: 10 }],
    });
  });

  it('leaves out each one whose period is 0', () => {
    expect(
      Object.keys(byId({ orphanSweepMs: 0, topUpSweepMs: 0, depositScanMs: 0 })).sort(),
    ).toEqual(['deposit-upkeep@q/10', 'finality-sweep@q']);
    expect(byId({ finalitySweepMs: 0, depositSweepMs: 0 })).not.toHaveProperty(
      'deposit-upkeep@q/10',
    );
  });

  it('has nothing per chain where no chain has a treasury or a factory', () => {
    expect(Object.keys(byId({ treasuryChains: [], depositChains: [] }))).toEqual([
      'orphan-sweep@q',
      'finality-sweep@q',
    ]);
  });
});

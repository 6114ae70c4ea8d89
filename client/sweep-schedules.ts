import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import type {
  depositScan,
  depositUpkeep,
  finalitySweep,
  orphanSweep,
  topUpSweep,
} from '../workflows/sweeps';

export const orphanSweepScheduleId = (taskQueue: string): string => `orphan-sweep@${taskQueue}`;
export const finalitySweepScheduleId = (taskQueue: string): string => `finality-sweep@${taskQueue}`;
export const topUpSweepScheduleId = (taskQueue: string, chainId: number): string =>
  `top-up-sweep@${taskQueue}/${chainId}`;
export const depositScanScheduleId = (taskQueue: string, chainId: number): string =>
  `deposit-scan@${taskQueue}/${chainId}`;
export const depositUpkeepScheduleId = (taskQueue: string, chainId: number): string =>
  `deposit-upkeep@${taskQueue}/${chainId}`;

/** One sweep of the fleet: the workflow a Temporal Schedule starts, how often, with what. */
export type SweepSchedule = { scheduleId: string; everyMs: number } & (
  | { workflowType: 'orphanSweep'; args: Parameters<typeof orphanSweep> }
  | { workflowType: 'finalitySweep'; args: Parameters<typeof finalitySweep> }
  | { workflowType: 'topUpSweep'; args: Parameters<typeof topUpSweep> }
  | { workflowType: 'depositScan'; args: Parameters<typeof depositScan> }
  | { workflowType: 'depositUpkeep'; args: Parameters<typeof depositUpkeep> }
);

/** What decides the sweeps: each period (0: that sweep is off) and the chains that need one. */
export interface SweepSettings {
  taskQueue: string;
  orphanSweepMs: number;
  finalitySweepMs: number;
  topUpSweepMs: number;
  depositScanMs: number;
  depositSweepMs: number;
  depositScanBlocks: number;
  /** Chains with a treasury: their hot wallets are topped up from it. */
  treasuryChains: readonly number[];
  /** Chains with a deposit factory: their deposit addresses are scanned and swept. */
  depositChains: readonly number[];
}

/**
 * Every sweep a worker ensures, as one table: the orphan and finality sweeps of the fleet, a
 * top-up sweep per chain with a treasury, a deposit scan and upkeep per chain with a deposit
 * factory (a chain without one hands out no addresses: nothing to scan or sweep).
 */
export function sweepSchedules(settings: SweepSettings): SweepSchedule[] {
  const { taskQueue } = settings;
  const schedules: SweepSchedule[] = [
    {
      scheduleId: orphanSweepScheduleId(taskQueue),
      everyMs: settings.orphanSweepMs,
      workflowType: 'orphanSweep',
      args: [{ olderThanMs: settings.orphanSweepMs }],
    },
    {
      scheduleId: finalitySweepScheduleId(taskQueue),
      everyMs: settings.finalitySweepMs,
      workflowType: 'finalitySweep',
      args: [{ limit: 500 }],
    },
    ...settings.treasuryChains.map((chainId): SweepSchedule => ({
      scheduleId: topUpSweepScheduleId(taskQueue, chainId),
      everyMs: settings.topUpSweepMs,
      workflowType: 'topUpSweep',
      args: [{ chainId }],
    })),
    ...settings.depositChains.flatMap((chainId): SweepSchedule[] => [
      {
        scheduleId: depositScanScheduleId(taskQueue, chainId),
        everyMs: settings.depositScanMs,
        workflowType: 'depositScan',
        args: [{ chainId, maxBlocks: settings.depositScanBlocks, creditLimit: 500 }],
      },
      {
        scheduleId: depositUpkeepScheduleId(taskQueue, chainId),
        everyMs: settings.depositSweepMs,
        workflowType: 'depositUpkeep',
        args: [{ chainId }],
      },
    ]),
  ];
  return schedules.filter((schedule) => schedule.everyMs > 0);
}

/**
 * A sweep of the fleet: a Temporal Schedule that starts its workflow every `everyMs` on
 * `taskQueue`, run by whichever worker polls — one sweep for the fleet, however many replicas
 * there are and whichever of them serves HTTP. Every worker ensures it at start; the last to start
 * sets the interval (a deploy that changes it takes effect). Overlaps are skipped.
 */
export async function ensureSweepSchedule(
  client: Client,
  taskQueue: string,
  { scheduleId, workflowType, everyMs, args }: SweepSchedule,
): Promise<void> {
  const spec = { intervals: [{ every: everyMs }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType,
    workflowId: scheduleId,
    taskQueue,
    args,
  };
  try {
    // Runs missed while the server was down: one catches up with all of them.
    await client.schedule.create({
      scheduleId,
      spec,
      action,
      policies: { catchupWindow: Math.max(everyMs, 10_000) },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule
      .getHandle(scheduleId)
      .update((previous) => ({ ...previous, spec, action }));
  }
}

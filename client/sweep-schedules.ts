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

/**
 * A sweep of the fleet: a Temporal Schedule that starts `workflowType` every `everyMs` on
 * `taskQueue`, run by whichever worker polls — one sweep for the fleet, however many replicas
 * there are and whichever of them serves HTTP. Every worker ensures it at start; the last to start
 * sets the interval (a deploy that changes it takes effect). Overlaps are skipped.
 */
async function ensureSweepSchedule(
  client: Client,
  sweep: { scheduleId: string; workflowType: string; taskQueue: string; everyMs: number },
  args: unknown[],
): Promise<void> {
  const { scheduleId, workflowType, taskQueue, everyMs } = sweep;
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

/** The orphan sweep: starts the workflow of an intent or batch a crash left without one. */
export function ensureOrphanSweepSchedule(
  client: Client,
  { taskQueue, everyMs }: { taskQueue: string; everyMs: number },
): Promise<void> {
  const args: Parameters<typeof orphanSweep> = [{ olderThanMs: everyMs }];
  return ensureSweepSchedule(
    client,
    {
      scheduleId: orphanSweepScheduleId(taskQueue),
      workflowType: 'orphanSweep',
      taskQueue,
      everyMs,
    },
    args,
  );
}

/** The finality sweep: marks confirmed intents whose block is final on their chain. */
export function ensureFinalitySweepSchedule(
  client: Client,
  { taskQueue, everyMs }: { taskQueue: string; everyMs: number },
): Promise<void> {
  const args: Parameters<typeof finalitySweep> = [{ limit: 500 }];
  return ensureSweepSchedule(
    client,
    {
      scheduleId: finalitySweepScheduleId(taskQueue),
      workflowType: 'finalitySweep',
      taskQueue,
      everyMs,
    },
    args,
  );
}

/** A chain's top-up sweep: tops up its hot wallets below their low mark from its treasury. */
export function ensureTopUpSweepSchedule(
  client: Client,
  { taskQueue, everyMs, chainId }: { taskQueue: string; everyMs: number; chainId: number },
): Promise<void> {
  const args: Parameters<typeof topUpSweep> = [{ chainId }];
  return ensureSweepSchedule(
    client,
    {
      scheduleId: topUpSweepScheduleId(taskQueue, chainId),
      workflowType: 'topUpSweep',
      taskQueue,
      everyMs,
    },
    args,
  );
}

/** A chain's deposit scan: reads on from its last block read, and credits what is final. */
export function ensureDepositScanSchedule(
  client: Client,
  {
    taskQueue,
    everyMs,
    chainId,
    maxBlocks,
  }: { taskQueue: string; everyMs: number; chainId: number; maxBlocks: number },
): Promise<void> {
  const args: Parameters<typeof depositScan> = [{ chainId, maxBlocks, creditLimit: 500 }];
  return ensureSweepSchedule(
    client,
    {
      scheduleId: depositScanScheduleId(taskQueue, chainId),
      workflowType: 'depositScan',
      taskQueue,
      everyMs,
    },
    args,
  );
}

/** A chain's deposit upkeep: sweeps credited deposits into the treasury, then reconciles. */
export function ensureDepositUpkeepSchedule(
  client: Client,
  { taskQueue, everyMs, chainId }: { taskQueue: string; everyMs: number; chainId: number },
): Promise<void> {
  const args: Parameters<typeof depositUpkeep> = [{ chainId }];
  return ensureSweepSchedule(
    client,
    {
      scheduleId: depositUpkeepScheduleId(taskQueue, chainId),
      workflowType: 'depositUpkeep',
      taskQueue,
      everyMs,
    },
    args,
  );
}

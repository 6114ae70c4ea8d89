import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import type { orphanSweep } from '../workflows/orphan-sweep';

export const orphanSweepScheduleId = (taskQueue: string): string => `orphan-sweep@${taskQueue}`;

/**
 * The fleet's orphan sweep: a Temporal Schedule that starts the `orphanSweep` workflow every
 * `everyMs` on `taskQueue`, run by whichever worker polls — one sweep for the fleet, however many
 * replicas there are and whichever of them serves HTTP. Every worker ensures it at start; the last
 * to start sets the interval (a deploy that changes it takes effect). Overlaps are skipped.
 */
export async function ensureOrphanSweepSchedule(
  client: Client,
  { taskQueue, everyMs }: { taskQueue: string; everyMs: number },
): Promise<void> {
  const scheduleId = orphanSweepScheduleId(taskQueue);
  const spec = { intervals: [{ every: everyMs }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'orphanSweep',
    workflowId: scheduleId,
    taskQueue,
    args: [{ olderThanMs: everyMs }] as Parameters<typeof orphanSweep>,
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

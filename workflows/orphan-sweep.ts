import { proxyActivities } from '@temporalio/workflow';
import type { RelayerActivities } from '../activities';
import type { ResumeOrphansParameters, ResumeOrphansResult } from '../activities/resume-orphans';
import { sweepStep } from './activity-profiles';

const { resumeOrphans } = proxyActivities<RelayerActivities>(sweepStep);

/**
 * Started by the fleet's orphan-sweep schedule (client/sweep-schedules.ts), once per
 * interval whichever worker runs it: starts the workflow of any intent or batch a crash left
 * without one.
 */
export async function orphanSweep(input: ResumeOrphansParameters): Promise<ResumeOrphansResult> {
  return resumeOrphans(input);
}

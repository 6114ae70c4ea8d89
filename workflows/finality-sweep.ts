import { proxyActivities } from '@temporalio/workflow';
import type { RelayerActivities } from '../activities';
import type { MarkFinalizedParameters, MarkFinalizedResult } from '../activities/mark-finalized';
import { sweepStep } from './activity-profiles';

const { markFinalized } = proxyActivities<RelayerActivities>(sweepStep);

/**
 * Started by the fleet's finality-sweep schedule (client/sweep-schedules.ts), once per interval
 * whichever worker runs it: marks confirmed intents whose block is final on their chain.
 */
export async function finalitySweep(input: MarkFinalizedParameters): Promise<MarkFinalizedResult> {
  return markFinalized(input);
}

import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RelayerActivities } from '../../activities';
import { defaultSendWindowMs } from '../../domain/intent-timings';
import {
  confirmStep,
  dbStep,
  localDbStep,
  localPermitStep,
  localReleaseStep,
  reviewStep,
  rpcStep,
} from '../activity-profiles';

/** The intent's database steps as activities on the task queue. */
export const { markSettling, hold, closeIntent, decideApproval, feeUnderCeiling } =
  proxyActivities<RelayerActivities>(dbStep);
export const { resolveReview, freeAbandonedLane, cancelUnmined, speedUp, allowUpgrade } =
  proxyActivities<RelayerActivities>(reviewStep);
export const { confirm } = proxyActivities<RelayerActivities>(confirmStep);

/** The send, retried within the intent's send window (its scheduleToClose timeout). */
export const broadcastWithin = (sendWindowMs = defaultSendWindowMs) =>
  proxyActivities<RelayerActivities>({ ...rpcStep, scheduleToCloseTimeout: sendWindowMs })
    .broadcast;

/**
 * Steps run inside the workflow's own task, as local activities: no task-queue round trip
 * (histories with the local-steps patch take settling, hold and the permit this way).
 */
export const inTask = {
  ...pick(
    proxyLocalActivities<RelayerActivities>(localDbStep),
    'markSettling',
    'hold',
    'walletTurnCame',
  ),
  ...pick(proxyLocalActivities<RelayerActivities>(localPermitStep), 'tryAcquirePermit'),
  ...pick(proxyLocalActivities<RelayerActivities>(localReleaseStep), 'releaseThrottle'),
};

/** The named members of an activity proxy (each proxy carries one set of options). */
function pick<T extends object, K extends keyof T>(from: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, from[key]])) as Pick<T, K>;
}

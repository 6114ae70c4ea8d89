import type { PermitSource } from './permit-source';

/**
 * QUOTA_MODE=task-queue: the Temporal server hands out permit activities at the quota's rate
 * (maxTaskQueueActivitiesPerSecond on the throttle queue), so once one runs its permit is granted
 * and the send goes without pacing; a try in the workflow's task sends the workflow there. The
 * benchmark's arm C measures this against Bottleneck.
 */
export const serverPacedPermits: PermitSource = {
  tryAcquire: () => Promise.resolve({ granted: false, reason: 'server-paced', retryAfterMs: 0 }),
  acquire: (permitId) => Promise.resolve({ granted: true, permitId, waitedMs: 0 }),
  release: () => true,
  cancelSlot: () => Promise.resolve(),
  reserveSend: () => Promise.resolve({ waitMs: 0, departure: { left: () => undefined } }),
};

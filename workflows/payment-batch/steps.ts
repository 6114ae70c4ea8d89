import { proxyActivities } from '@temporalio/workflow';
import type { RelayerActivities } from '../../activities';
import { dbStep } from '../activity-profiles';

// The batch's steps: each reads or writes the database only, with the database's profile.

export const {
  decideBatchApproval,
  loadBatchItems,
  admitBatchItem,
  recordItemOutcome,
  cancelBatchItems,
  skipPendingItems,
  finishBatch,
} = proxyActivities<RelayerActivities>(dbStep);

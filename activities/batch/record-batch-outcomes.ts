import { BrokenInvariantError } from '../../domain/errors';
import type { BatchItemOutcome } from '../../domain/batch';
import { ReasonCode, type Reason } from '../../domain/reason-codes';
import type { BatchStatus } from '../../domain/batch';
import type { ActivityDependencies } from '../dependencies';
import { terminalStatuses } from '../../domain/intent';
import { setBatchStatus } from '../../store/batches';
import { findBatchItem, skipPendingBatchItems, updateBatchItem } from '../../store/batch-items';
import { getIntent } from '../../store/intents';
import type { BatchItemParameters } from './batch-item-parameters';

/**
 * Marks a started item finished with how its intent ended (and when: the record of items active
 * over time). Reads the intent itself, the one truth; null while the intent has not ended.
 */
export const recordItemOutcome =
  ({ db, clock }: ActivityDependencies) =>
  async ({ batchId, index }: BatchItemParameters): Promise<BatchItemOutcome | null> => {
    const item = await findBatchItem(db.kysely, batchId, index);
    if (!item?.intentId) {
      throw new BrokenInvariantError({
        rule: `item ${index} of batch ${batchId} was never started`,
      });
    }
    const intent = await getIntent(db.kysely, item.intentId);
    if (!terminalStatuses.has(intent.status)) return null;
    if (item.state === 'started') {
      await updateBatchItem(db.kysely, batchId, index, {
        state: 'finished',
        outcome: intent.status,
        finished_at: clock.now().toISOString(),
      });
    }
    return intent.status;
  };

/** Every item not started yet will not be: the batch was cancelled or stopped. */
export const skipPendingItems =
  ({ db, clock }: ActivityDependencies) =>
  async ({ batchId }: { batchId: string }): Promise<number> =>
    skipPendingBatchItems(db.kysely, batchId, clock.now());

export interface FinishBatchParameters {
  batchId: string;
  status: Exclude<BatchStatus, 'running'>;
  /** Text alone from a workflow of a build before reason codes (an unversioned rollout). */
  cause: Reason | string | null;
}

export const finishBatch =
  ({ db, clock }: ActivityDependencies) =>
  async ({ batchId, status, cause }: FinishBatchParameters): Promise<void> =>
    setBatchStatus(
      db.kysely,
      batchId,
      {
        status,
        cause: typeof cause === 'string' ? { code: ReasonCode.legacyUnknown, text: cause } : cause,
      },
      clock.now(),
    );

import { RelayerError } from '../../domain/errors';
import { ErrorName } from '../../domain/error-catalogue';
import { cancelUnsignedIntent } from '../../operations/cancel-intent';
import type { ActivityDependencies } from '../dependencies';

export interface CancelBatchItemsParameters {
  batchId: string;
  intentIds: string[];
  why: string;
}

/**
 * Cancels the batch's running intents that have nothing signed yet (holds released); the others
 * may already be on-chain, so they are left to finish. Returns the ones it cancelled.
 */
export const cancelBatchItems =
  ({ db, clock }: ActivityDependencies) =>
  async ({ batchId, intentIds, why }: CancelBatchItemsParameters): Promise<string[]> => {
    const cancelled: string[] = [];
    for (const intentId of intentIds) {
      try {
        // Returns the intent cancelled, by this call or an earlier one; throws if it is signed.
        await cancelUnsignedIntent(db, intentId, `batch ${batchId} (${why})`, clock.now());
        cancelled.push(intentId);
      } catch (error) {
        if (!(error instanceof RelayerError && error.name === ErrorName.notCancellable)) {
          throw error;
        }
      }
    }
    return cancelled;
  };

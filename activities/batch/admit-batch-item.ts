import { RelayerError, UnknownTenantError, BrokenInvariantError } from '../../domain/errors';
import { ErrorName, rejectionCodeOf } from '../../domain/error-catalogue';
import { admitIntent } from '../../operations/admit-intent';
import type { ActivityDependencies } from '../dependencies';
import { findBatch } from '../../store/batches';
import { findBatchItem, updateBatchItem } from '../../store/batch-items';
import { labelsOf, type IntentLabels } from '../../domain/intent-labels';
import type { BatchItemParameters } from './batch-item-parameters';

export type AdmitBatchItemResult =
  | {
      kind: 'admitted';
      intentId: string;
      tenantId: string;
      /** For the item workflow's search attributes and memo (absent in results recorded before). */
      labels?: IntentLabels;
      /** Its batch's deadlines, in epoch ms, for the item's workflow (absent: none). */
      validUntil?: number;
      notBefore?: number;
    }
  /** The tenant or the relayer is full: ask again later; the item waits in the database. */
  | { kind: 'wait'; retryAfterMs: number; reason: string }
  | { kind: 'rejected'; code: string; message: string };

const waitTypes: readonly string[] = [ErrorName.tenantLimitReached, ErrorName.backlogFull];

/**
 * Turns a batch item into an `authorized` intent under the same admission rules as the API (so a
 * tenant's in-flight limit holds inside a batch too). Idempotent: the intent's Idempotency-Key is
 * the item's place in the batch, so a retried or replayed admission finds the same intent.
 */
export const admitBatchItem =
  ({ db, clock, admission }: ActivityDependencies) =>
  async ({ batchId, index }: BatchItemParameters): Promise<AdmitBatchItemResult> => {
    const batch = await findBatch(db.kysely, { id: batchId });
    const item = await findBatchItem(db.kysely, batchId, index);
    if (!batch || !item) {
      throw new BrokenInvariantError({ rule: `no item ${index} in batch ${batchId}` });
    }
    const now = clock.now();
    try {
      const { intent } = await admitIntent(
        db,
        {
          tenantId: batch.tenantId,
          chainId: item.chainId,
          ...(item.from !== null && { from: item.from }),
          to: item.to,
          asset: item.asset,
          amount: item.amount,
          // The batch's: past validUntil the item is refused at admission (invalid_request).
          ...(batch.validUntil && { validUntil: batch.validUntil }),
          ...(batch.notBefore && { notBefore: batch.notBefore }),
          // A batch from before priorities pays its items as before: normal.
          ...(batch.priority && { priority: batch.priority }),
          ...(item.reference !== null && { reference: item.reference }),
          ...(item.metadata !== null && { metadata: item.metadata }),
          ...(item.maxFeePerGas !== null && { maxFeePerGas: item.maxFeePerGas }),
        },
        {
          idempotencyKey: `batch:${batchId}:${index}`,
          // A batch approved as a batch pays its items at the threshold; one that needed no
          // approval when submitted refuses an item that crosses a threshold lowered since.
          ...(batch.decidedBy
            ? {
                approvedWithBatch: {
                  batchId,
                  approver: batch.decidedBy,
                  note: batch.decisionNote ?? null,
                },
              }
            : { refuseApproval: true }),
        },
        admission,
        () => clock.now(),
      );
      if (item.state === 'pending') {
        await updateBatchItem(db.kysely, batchId, index, {
          state: 'started',
          intent_id: intent.id,
          started_at: now.toISOString(),
        });
      }
      return {
        kind: 'admitted',
        intentId: intent.id,
        tenantId: batch.tenantId,
        labels: labelsOf(intent, batchId),
        ...(intent.validUntil && { validUntil: intent.validUntil.getTime() }),
        ...(intent.notBefore && { notBefore: intent.notBefore.getTime() }),
      };
    } catch (error) {
      if (!(error instanceof RelayerError) || error instanceof UnknownTenantError) throw error;
      if (waitTypes.includes(error.name)) {
        return { kind: 'wait', retryAfterMs: error.retryAfterMs ?? 1000, reason: error.name };
      }
      const code = rejectionCodeOf(error.name);
      if (!code) throw error;
      await updateBatchItem(db.kysely, batchId, index, {
        state: 'rejected',
        outcome: 'rejected',
        error_code: code,
        error_message: error.message,
        finished_at: now.toISOString(),
      });
      return { kind: 'rejected', code, message: error.message };
    }
  };

import type { ApprovalExpiry, ApprovalOutcome, ApprovalRequest } from '../domain/approval';
import { ReasonCode } from '../domain/reason-codes';
import {
  ApprovalRefusedError,
  BatchNotFoundError,
  NotAwaitingApprovalError,
} from '../domain/errors';
import { findBatchForUpdate, decideBatch } from '../store/batches';
import type { Database } from '../store/database';
import type { BatchStatus } from '../domain/batch';

/**
 * Applies a decision on a batch awaiting approval, once for all its items: approved it is
 * `running` (its items start, each admitted as approved by the same key), rejected or expired it
 * ends `rejected` with nothing started. Four eyes: the key that submitted it cannot approve it.
 * Run again after it applied (a retried step), it answers the batch as the decision left it.
 */
export async function decideBatchApproval(
  database: Database,
  batchId: string,
  request: ApprovalRequest | ApprovalExpiry,
  now: Date,
): Promise<ApprovalOutcome<BatchStatus>> {
  return database.transaction(async (trx) => {
    const batch = await findBatchForUpdate(database, trx, batchId);
    if (!batch) throw new BatchNotFoundError(batchId);
    const status = request.decision === 'approve' ? 'running' : 'rejected';
    if (batch.status !== 'awaiting_approval') {
      if (request.decision === 'expire' || batch.status === status) return { status: batch.status };
      throw new NotAwaitingApprovalError(batchId, batch.status, 'batch');
    }
    if (request.decision === 'approve' && batch.submittedBy === request.keyId) {
      throw new ApprovalRefusedError(batchId, request.keyId, 'batch');
    }
    if (request.decision === 'expire') {
      const cause = {
        code: ReasonCode.approvalExpired,
        text: `approval_expired: not approved within ${Math.round(request.ttlMs / 3600_000)} h`,
      };
      await decideBatch(trx, batchId, { status, decidedBy: 'relayer', note: null, cause }, now);
      return { status };
    }
    const note = request.note ?? null;
    const cause =
      status === 'rejected'
        ? {
            code: ReasonCode.rejectedByApprover,
            text: `rejected by ${request.actor}${note ? `: ${note}` : ''}`,
          }
        : null;
    await decideBatch(trx, batchId, { status, decidedBy: request.actor, note, cause }, now);
    return { status };
  });
}

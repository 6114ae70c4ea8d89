import { ApprovalRefusedError, NotAwaitingApprovalError } from '../domain/errors';
import type { ApprovalExpiry, ApprovalOutcome, ApprovalRequest } from '../domain/approval';
import { IntentStatus } from '../domain/intent';
import { ReasonCode } from '../domain/reason-codes';
import { recordAudit } from '../store/audit-log';
import type { Database } from '../store/database';
import { getIntentForUpdate, transitionIntent } from '../store/intents';

/** What each decision makes of an intent awaiting approval. */
const outcomeOf = {
  approve: IntentStatus.authorized,
  reject: IntentStatus.rejected,
  expire: IntentStatus.rejected,
} as const;

/**
 * Applies a decision on an intent awaiting approval, with its audit entry, in one transaction:
 * approved it is `authorized` (and goes on to its permit), rejected or expired it ends
 * `rejected`, nothing held. Four eyes: the key that submitted it cannot approve it. Run again
 * after it applied (a retried step), it answers the intent as the decision left it; an intent
 * that left awaiting_approval otherwise (a cancel) is answered as it is for an expiry, refused
 * for a person's decision.
 */
export async function decideApproval(
  database: Database,
  intentId: string,
  request: ApprovalRequest | ApprovalExpiry,
  now: Date,
): Promise<ApprovalOutcome> {
  return database.transaction(async (trx) => {
    const intent = await getIntentForUpdate(database, trx, intentId);
    const status = outcomeOf[request.decision];
    if (intent.status !== IntentStatus.awaitingApproval) {
      if (request.decision === 'expire' || intent.status === status) {
        return { status: intent.status };
      }
      throw new NotAwaitingApprovalError(intentId, intent.status);
    }
    if (request.decision === 'approve' && intent.submittedBy === request.keyId) {
      throw new ApprovalRefusedError(intentId, request.keyId);
    }
    const reason =
      request.decision === 'expire'
        ? {
            code: ReasonCode.approvalExpired,
            text: `not approved within ${Math.round(request.ttlMs / 3600_000)} h`,
          }
        : request.decision === 'reject'
          ? {
              code: ReasonCode.rejectedByApprover,
              text: `rejected by ${request.actor}${request.note ? `: ${request.note}` : ''}`,
            }
          : null;
    const decided = await transitionIntent(trx, intent, { status, reason }, now);
    await recordAudit(
      trx,
      request.decision === 'expire'
        ? {
            intentId,
            action: 'approval_expired',
            actor: 'relayer',
            detail: { ttlMs: request.ttlMs },
          }
        : {
            intentId,
            action: request.decision,
            actor: request.actor,
            detail: { note: request.note },
          },
      now,
    );
    return { status: decided.status };
  });
}

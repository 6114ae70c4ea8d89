import { type Intent } from '../../domain/intent';
import type { ReviewDecision } from '../../domain/review';
import { auditTrail } from '../../store/audit-log';
import { getIntent } from '../../store/intents';
import type { DecidedBy, ReviewCheckDependencies } from './dependencies';
import { resolveAsConfirmed } from './confirm';
import { resolveAsFailed } from './fail';
import { prepareRetry, prepareCancel } from './retry-and-cancel';

export type { DecidedBy, ReviewCheckDependencies } from './dependencies';
export { intentInReview } from './checks';

/**
 * Checks a decision against the chain and applies it: so an operator cannot book a payment that
 * did not happen, nor release money a signed transaction may still spend; each is recorded in the
 * audit log with who and when. A retry only puts the intent back to `signed`: whoever calls this
 * sends the bytes again.
 */
export async function applyReviewDecision(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  decision: ReviewDecision,
): Promise<Intent> {
  // Applied already by an earlier try of the same step (its worker died after the commit).
  if (by.decisionKey !== undefined && (await decidedBy(deps, intentId, by.decisionKey))) {
    return getIntent(deps.database.kysely, intentId);
  }
  switch (decision.action) {
    case 'confirm':
      return resolveAsConfirmed(deps, by, intentId, decision.txHash, decision.note);
    case 'fail':
      return resolveAsFailed(deps, by, intentId, decision.reason);
    case 'retry':
      return prepareRetry(deps, by, intentId, decision.note);
    case 'cancel':
      return prepareCancel(deps, by, intentId, decision.note);
  }
}

/** Whether the step with `decisionKey` (its run and activity id) has applied its decision. */
export async function decidedBy(
  deps: ReviewCheckDependencies,
  intentId: string,
  decisionKey: string,
): Promise<boolean> {
  const trail = await auditTrail(deps.database.kysely, intentId);
  return trail.some((entry) => entry.detail.decisionKey === decisionKey);
}

import { NotInReviewError } from '../../domain/errors';
import { IntentStatus, type Intent } from '../../domain/intent';
import { recordAudit, type AuditAction } from '../../store/audit-log';
import { getIntentForUpdate, transitionIntent } from '../../store/intents';
import { endHold, reverseCapture } from '../../store/holds';
import type { ReviewCheckDependencies, DecidedBy } from './dependencies';

/** The change itself: re-checked under the row lock, with its hold movement and audit entry. */
export async function resolve(
  deps: ReviewCheckDependencies,
  by: DecidedBy,
  intentId: string,
  action: AuditAction,
  status: IntentStatus,
  change: {
    patch: Omit<Parameters<typeof transitionIntent>[2], 'status'>;
    /**
     * `released`: nothing was paid, so the tenant is charged nothing — an active hold is
     * released, and a captured one (its payment reorged away after it was booked) reversed.
     */
    hold?: 'captured' | 'released';
    /** The gas the intent's mined transaction burned, posted with the hold's end. */
    gasPaid?: bigint;
    detail: Record<string, unknown>;
  },
): Promise<Intent> {
  const { database } = deps;
  const now = deps.clock?.() ?? new Date();
  return database.transaction(async (trx) => {
    const current = await getIntentForUpdate(database, trx, intentId);
    if (current.status !== IntentStatus.needsReview) {
      throw new NotInReviewError(intentId, current.status);
    }
    if (by.intentVersion !== undefined && current.version !== by.intentVersion) {
      const decidedSince = `intent ${intentId} was decided on after this decision was taken (version ${by.intentVersion}, now ${current.version}): look at it again`;
      throw new NotInReviewError(intentId, current.status, decidedSince);
    }
    const updated = await transitionIntent(trx, current, { status, ...change.patch }, now);
    const ended =
      change.hold && (await endHold(database, trx, intentId, change.hold, now, change.gasPaid));
    const reversed =
      change.hold === 'released' && !ended && (await reverseCapture(database, trx, intentId, now));
    const detail = {
      ...change.detail,
      ...(reversed && { captureReversed: true }),
      ...(by.decisionKey && { decisionKey: by.decisionKey }),
    };
    await recordAudit(trx, { intentId, action, actor: by.actor, detail }, now);
    return updated;
  });
}

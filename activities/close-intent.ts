import { mayBeOnChain, IntentStatus, terminalStatuses } from '../domain/intent';
import { ageMs, type ActivityDependencies } from './dependencies';
import { getIntentForUpdate, transitionIntent } from '../store/intents';
import { endHold } from '../store/holds';
import type { BatchItemParameters } from './batch/batch-item-parameters';
import { passWalletTurn } from './wallet-turn';
import { ErrorName } from '../domain/error-catalogue';
import { ReasonCode, reasonCodeOfError } from '../domain/reason-codes';
import { reasonAtClose } from '../domain/closing-reason';

export interface CloseIntentParameters {
  intentId: string;
  reason: string;
  /**
   * The reason's code (domain/reason-codes.ts). Absent in the input of a close scheduled by a
   * worker from before codes, still running while a deploy replaces it.
   */
  reasonCode?: ReasonCode;
  /** A batch item in its wallet's turns: ended unsigned, it hands the turn on. */
  batchItem?: BatchItemParameters;
}

export interface CloseIntentResult {
  status: IntentStatus;
  /** From submit to now, for the end-to-end latency metric. */
  ageMs: number;
  /** What it pays in, for the metrics: `native` or the token's address. */
  asset?: string;
}

/**
 * Ends an intent the workflow cannot take further. If nothing was signed, nothing can be on-chain:
 * it fails (or expires, its validUntil passed) and its hold (if any) goes back to the tenant.
 * Once signed, the transaction may still land, so the money stays held and a person decides
 * (needs_review). Never a second transaction.
 */
export const closeIntent = (deps: ActivityDependencies) => {
  const { db, clock } = deps;
  const close = ({
    intentId,
    reason,
    reasonCode,
  }: CloseIntentParameters): Promise<CloseIntentResult> =>
    db.transaction(async (trx) => {
      const intent = await getIntentForUpdate(db, trx, intentId);
      const now = clock.now();
      if (terminalStatuses.has(intent.status)) {
        return { status: intent.status, ageMs: ageMs(intent, clock), asset: intent.asset };
      }
      // A held intent's wait is what it said before its first signing; once signed it says
      // nothing of why a later step ran out of time.
      const said =
        intent.reasonCode && !mayBeOnChain(intent.status)
          ? { code: intent.reasonCode, text: intent.reason ?? '' }
          : null;
      const { code, text } = reasonAtClose(said, {
        code: reasonCode ?? ReasonCode.legacyUnknown,
        text: reason,
      });
      const status = mayBeOnChain(intent.status)
        ? IntentStatus.needsReview
        : code === reasonCodeOfError(ErrorName.deadlinePassed)
          ? IntentStatus.expired
          : IntentStatus.failed;
      await transitionIntent(trx, intent, { status, reason: { code, text } }, now);
      if (status !== IntentStatus.needsReview) await endHold(db, trx, intentId, 'released', now);
      return { status, ageMs: ageMs(intent, clock), asset: intent.asset };
    });
  return async (parameters: CloseIntentParameters): Promise<CloseIntentResult> => {
    const closed = await close(parameters);
    // Cancelled (or failed) while its slot in the permit line was ahead: the next intent takes it.
    // Best effort: a slot not given back only goes unused, and Redis down must not keep an
    // intent from closing.
    await deps.throttle.cancelSlot(parameters.intentId).catch(() => undefined);
    if (parameters.batchItem && closed.status !== IntentStatus.needsReview) {
      await passWalletTurn(deps, parameters.batchItem);
    }
    return closed;
  };
};

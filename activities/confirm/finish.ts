import { isNative } from '../../domain/asset';
import { judgeMined, reasonOfOutcome } from '../../domain/payment-outcome';
import { statusOfOutcome } from '../../domain/outcome-status';
import { deliveredBy } from '../../chain/erc20';
import { findToken } from '../../store/assets';
import { IntentStatus, type Intent } from '../../domain/intent';
import { signingWallet } from '../../domain/signed-intent';
import type { TransactionObservation } from '../../chain/chain';
import { ageMs, type ActivityDependencies } from '../dependencies';
import { getIntentForUpdate, transitionIntent } from '../../store/intents';
import { endHold } from '../../store/holds';
import { takesNonceBack, type TransactionAttempt } from '../../store/transaction-attempts';
import type { ConfirmResult } from './result';

export type Mined = Extract<TransactionObservation, { state: 'mined' }>;

/**
 * An intent's transaction mined deep enough: the receipt read as an outcome (paid, reverted, a
 * cancel, a token that moved other than asked), its status, and its hold captured or released,
 * in one transaction; an intent another step ended meanwhile is left as it is.
 */
export async function finishMined(
  { db, clock }: Pick<ActivityDependencies, 'db' | 'clock'>,
  intent: Intent,
  attempts: readonly TransactionAttempt[],
  attempt: TransactionAttempt,
  seen: Mined,
): Promise<ConfirmResult> {
  const token = isNative(intent.asset)
    ? undefined
    : await findToken(db.kysely, intent.chainId, { address: intent.asset });
  const outcome = judgeMined({
    asset: intent.asset,
    amount: intent.amount,
    cancel: takesNonceBack(attempts, attempt),
    succeeded: seen.succeeded,
    delivered: isNative(intent.asset)
      ? 0n
      : deliveredBy(seen.transfers, intent.asset, signingWallet(intent), intent.to),
    feeOnTransfer: token?.feeOnTransfer ?? false,
  });
  const reason = reasonOfOutcome(outcome, intent.amount);
  const status = statusOfOutcome(outcome.state);
  return db.transaction(async (trx) => {
    const now = clock.now();
    const current = await getIntentForUpdate(db, trx, intent.id);
    if (current.status === IntentStatus.confirming) {
      await transitionIntent(
        trx,
        current,
        {
          status,
          nonce: attempt.nonce,
          txHash: attempt.txHash,
          rawTx: attempt.rawTx,
          blockNumber: seen.blockNumber,
          reason,
          feePaid: seen.gasPaid,
          ...('delivered' in outcome &&
            outcome.delivered !== undefined && { deliveredAmount: outcome.delivered }),
        },
        now,
      );
      // A mismatch keeps its hold for the person who decides; the gas is posted then.
      if (status !== IntentStatus.needsReview) {
        const paid = status === IntentStatus.confirmed;
        await endHold(db, trx, intent.id, paid ? 'captured' : 'released', now, seen.gasPaid);
      }
    }
    return {
      state: outcome.state,
      blockNumber: seen.blockNumber.toString(),
      ageMs: ageMs(current, clock),
      txHash: attempt.txHash,
      reason: reason?.text ?? null,
      reasonCode: reason?.code ?? null,
      asset: intent.asset,
    };
  });
}

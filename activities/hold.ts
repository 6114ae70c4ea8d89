import { IntentClosedError } from '../domain/errors';
import { ledgerAssetOf } from '../domain/asset';
import { isCustodyMove } from '../domain/custody';
import { IntentStatus, stepState } from '../domain/intent';
import type { ActivityDependencies } from './dependencies';
import type { IntentStepParameters, IntentStepResult } from './mark-settling';
import { getIntentForUpdate, transitionIntent } from '../store/intents';
import { placeHold } from '../store/holds';
import type { BatchItemParameters } from './batch/batch-item-parameters';
import { passWalletTurn } from './wallet-turn';
import { enforcePaymentPolicy } from '../operations/payment-policy';

/**
 * settling → held: reserves the amount on the tenant's balance in the intent's asset (and, when
 * tenants pay gas, the most its transaction may cost in native), in the same transaction as the
 * state change, so a hold exists exactly when the intent says so. A balance can never go
 * negative: an intent the tenant cannot cover fails with InsufficientBalance. A custody move's hold
 * reserves nothing (domain/custody.ts): it only records that the house pays its gas. A hold
 * the tenant's payment policy refuses now fails the intent with PolicyViolation, nothing held.
 */
export const hold = (deps: ActivityDependencies) => {
  const { db, clock, chains } = deps;
  const placeIt = ({ intentId }: IntentStepParameters): Promise<IntentStepResult> =>
    db.transaction(async (trx) => {
      const intent = await getIntentForUpdate(db, trx, intentId);
      const state = stepState(intent.status, IntentStatus.held);
      if (state === 'closed') throw new IntentClosedError(intentId, intent.status);
      if (state === 'done') return { status: intent.status };
      const now = clock.now();
      // A custody move moves the relayer's own coin: it holds nobody's, and the house pays its gas.
      const custody = isCustodyMove(intent);
      // Admission applied the policy already; this holds a lowered limit (and the race for a
      // limit's last room) exactly: a hold that would cross it fails the intent, nothing held.
      if (!custody) await enforcePaymentPolicy(db, trx, intent, 'hold', now);
      const feeHeld =
        deps.gasPaidBy === 'tenant' && !custody ? chains.get(intent.chainId).maxFeePerTransfer : 0n;
      await placeHold(
        db,
        trx,
        {
          intentId,
          tenantId: intent.tenantId,
          chainId: intent.chainId,
          asset: ledgerAssetOf(intent.chainId, intent.asset),
          amount: custody ? 0n : intent.amount,
          feeHeld,
        },
        now,
      );
      const held = await transitionIntent(trx, intent, { status: IntentStatus.held }, now);
      return { status: held.status };
    });
  return async (parameters: HoldParameters): Promise<IntentStepResult> => {
    const held = await placeIt(parameters);
    // Held, it needs nothing more to sign: the next item of its wallet may get ready meanwhile.
    if (parameters.batchItem && held.status === IntentStatus.held) {
      await passWalletTurn(deps, parameters.batchItem);
    }
    return held;
  };
};

export interface HoldParameters extends IntentStepParameters {
  /** A batch item in its wallet's turns: the next item is told once this one is held. */
  batchItem?: BatchItemParameters;
}

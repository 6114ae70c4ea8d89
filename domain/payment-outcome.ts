import { isNative, type AssetRef } from './asset';
import { cancelledOnChainReason, revertedReason } from './intent';
import { ReasonCode, type Reason } from './reason-codes';

/**
 * How an intent ends once one of its transactions is mined deep enough, judged by what the
 * chain did, not by the receipt's status alone: a token's transfer pays only what its Transfer
 * logs say moved from the wallet to the recipient.
 */
export type MinedOutcome =
  /** Paid; `delivered` when a fee-on-transfer token delivered less than the amount. */
  | { state: 'confirmed'; delivered?: bigint }
  /** The transaction reverted: nothing moved. */
  | { state: 'reverted' }
  /** An operator's (or the lane rule's) zero-value cancel took the nonce. */
  | { state: 'cancelled' }
  /**
   * The token's transfer succeeded without moving anything to the recipient (it returned false).
   */
  | { state: 'moved-nothing' }
  /**
   * The token delivered other than the amount (less, and it is not known to take a fee; or more):
   * a person looks.
   */
  | { state: 'mismatch'; delivered: bigint };

export interface MinedFacts {
  asset: AssetRef;
  amount: bigint;
  /** The mined attempt was a cancel (a zero-value transfer to the wallet itself). */
  cancel: boolean;
  succeeded: boolean;
  /** For a token: what its Transfer logs moved from the wallet to the recipient. */
  delivered: bigint;
  /** The token was registered as taking a fee on transfer. */
  feeOnTransfer: boolean;
}

export function judgeMined(facts: MinedFacts): MinedOutcome {
  if (facts.cancel) return { state: 'cancelled' };
  if (!facts.succeeded) return { state: 'reverted' };
  if (isNative(facts.asset)) return { state: 'confirmed' };
  const { delivered, amount } = facts;
  if (delivered === 0n) return { state: 'moved-nothing' };
  if (delivered === amount) return { state: 'confirmed' };
  if (delivered < amount && facts.feeOnTransfer) return { state: 'confirmed', delivered };
  return { state: 'mismatch', delivered };
}

/** Why an intent ended other than paid in full, for its `reason` (null: paid in full). */
export function reasonOfOutcome(outcome: MinedOutcome, amount: bigint): Reason | null {
  switch (outcome.state) {
    case 'confirmed':
      return null;
    case 'reverted':
      return { code: ReasonCode.reverted, text: revertedReason };
    case 'cancelled':
      return { code: ReasonCode.cancelledOnChain, text: cancelledOnChainReason };
    case 'moved-nothing':
      return {
        code: ReasonCode.tokenMovedNothing,
        text: 'TokenMovedNothing: the transaction succeeded, but the token logged no transfer from the wallet to the recipient (the token moved no funds)',
      };
    case 'mismatch':
      return outcome.delivered < amount
        ? {
            code: ReasonCode.tokenShortfall,
            text: `TokenShortfall: the token delivered ${outcome.delivered} of ${amount} base units (${amount - outcome.delivered} short) and is not registered as taking a fee on transfer: an operator confirms it as paid, or settles the difference`,
          }
        : {
            code: ReasonCode.tokenOverdelivered,
            text: `TokenOverdelivered: the token logged ${outcome.delivered} base units to the recipient for a transfer of ${amount}: an operator looks at the token`,
          };
  }
}

import type { ReasonCode } from '../../domain/reason-codes';
import type { MinedOutcome } from '../../domain/payment-outcome';
import type { Chain } from '../../chain/chain';
import type { DelayedNotice } from '../../domain/delayed-notice';

/**
 * How an intent's confirming ended (domain/payment-outcome.ts): paid, reverted (mined, nothing
 * moved), cancelled (a zero-value transfer at its nonce was mined deep enough), a token that
 * moved nothing, or a token that delivered other than the amount (the intent waits in review).
 */
export type EndState = MinedOutcome['state'];

/** `ageMs`: from submit to now, for the end-to-end latency metric. */
export type ConfirmResult =
  | {
      state: EndState;
      blockNumber: string;
      ageMs: number;
      txHash?: string;
      /** Why it did not end paid in full (absent in results recorded before tokens). */
      reason?: string | null;
      /** The reason's code (absent in results recorded before codes). */
      reasonCode?: ReasonCode | null;
      /** What it paid in, for the metrics: `native` or the token's address. */
      asset?: string;
    }
  | {
      state: 'pending';
      confirmations: number;
      retryAfterMs: number;
      /** The intent's current transaction after this look (a replacement may have taken over). */
      txHash?: string;
      /** This look told the tenant the payment is delayed (the metric counts it). */
      delayed?: DelayedNotice;
    };

/** A look that found nothing ended: when to look again, and the transaction it now follows. */
export const pending = (
  chain: Chain,
  confirmations = 0,
  retryAfterMs = chain.nextLookInMs(),
  txHash?: string,
): ConfirmResult => ({
  state: 'pending',
  confirmations,
  retryAfterMs: Math.max(retryAfterMs, chain.nextLookInMs()),
  ...(txHash && { txHash }),
});

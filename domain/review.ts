import type { IntentStatus } from './intent';
import type { ReasonCode } from './reason-codes';

/**
 * What an operator decides for an intent in needs_review. Pure: the API, the workflow's update
 * handler and the resolving activity all speak it.
 */
export type ReviewDecision =
  /** This transaction (checked on-chain) paid the intent: capture the hold. */
  | { action: 'confirm'; txHash: `0x${string}`; note?: string }
  /** Nothing paid it and nothing signed for it can still land: release the hold. */
  | { action: 'fail'; reason: string }
  /** Send the same signed bytes again and follow them to the end. */
  | { action: 'retry'; note?: string }
  /**
   * Take the nonce back: a zero-value transfer to the wallet itself at the same nonce, outbidding
   * every attempt, followed to the end: mined, the intent fails (cancelled on-chain) and its hold
   * is released; if one of its own attempts wins the race instead, it is confirmed.
   */
  | { action: 'cancel'; note?: string };

export interface ReviewRequest {
  decision: ReviewDecision;
  /** The operator, as the audit log names them. */
  actor: string;
  /**
   * The intent's version the decision was taken on (the API reads it): a decision meant for an
   * earlier stay in review, which another decision has ended since, is refused. Absent: not
   * checked.
   */
  intentVersion?: number;
}

/** The intent as a decision left it. */
export interface ReviewOutcome {
  status: IntentStatus;
  txHash: string | null;
  blockNumber: string | null;
  reason: string | null;
  /** Absent in outcomes recorded before codes. */
  reasonCode?: ReasonCode | null;
}

/** A tenant's or operator's cancel of a payment sent but not mined: its nonce taken back. */
export interface UnminedCancelRequest {
  /** Who cancels, as the audit log names them. */
  actor: string;
  note?: string;
}

/**
 * A tenant's or operator's speed-up of a payment sent but not mined: a replacement at its nonce
 * bidding at least these (wei, as decimal strings: it travels as JSON), or the least a
 * replacement must bid when none is named.
 */
export interface SpeedUpRequest {
  /** Who asks, as the audit log names them. */
  actor: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  note?: string;
}

import { formatGwei } from 'viem/utils';

/**
 * Whether a look at an unmined payment tells its tenant it is delayed (`intent.delayed`): once it
 * has waited past the threshold since its first transaction, and again at each fee bump after
 * that, at most `maxNotices` times in all. Pure; the confirm step records the notice.
 */
export interface DelayedLook {
  /** Since the payment's first transaction was signed. */
  unminedForMs: number;
  delayedAfterMs: number;
  /** Notices already recorded for the payment. */
  noticesSent: number;
  maxNotices: number;
  /** This look replaced the payment's transaction with a higher bid. */
  bumped: boolean;
}

export type DelayedNotice = 'threshold' | 'fee_bump';

export function decideDelayedNotice(look: DelayedLook): DelayedNotice | null {
  if (look.noticesSent >= look.maxNotices || look.unminedForMs < look.delayedAfterMs) return null;
  if (look.noticesSent === 0) return 'threshold';
  return look.bumped ? 'fee_bump' : null;
}

/** What the relayer did and will do, in the event's words (`delay` of its data). */
export interface DelayDetail {
  reason: DelayedNotice;
  unminedForMs: number;
  feeBumps: number;
  /** The latest transaction's bid, in wei. */
  maxFeePerGas: string;
  did: string;
  next: string;
}

/** The words of a notice: a person reads `did` and `next`, a program the figures. */
export function delayDetail(facts: {
  reason: DelayedNotice;
  unminedForMs: number;
  feeBumps: number;
  nextLookInMs: number;
  stuckAfterMs: number;
  maxFeePerGas: bigint;
}): DelayDetail {
  const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
  return {
    reason: facts.reason,
    unminedForMs: facts.unminedForMs,
    feeBumps: facts.feeBumps,
    maxFeePerGas: facts.maxFeePerGas.toString(),
    did:
      facts.feeBumps === 0
        ? `signed and sent; not mined after ${seconds(facts.unminedForMs)}`
        : `raised its fee ${facts.feeBumps} time(s), now up to ${formatGwei(facts.maxFeePerGas)} gwei`,
    next:
      `looks again in about ${seconds(facts.nextLookInMs)}; raises the fee again once the ` +
      `transaction has waited ${seconds(facts.stuckAfterMs)} unmined, within the chain's caps`,
  };
}

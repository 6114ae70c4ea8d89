import { formatGwei } from 'viem';
import { notYetSignedStatuses } from '../domain/intent';
import { ReasonCode } from '../domain/reason-codes';
import { getIntent, transitionIntent } from '../store/intents';
import type { ActivityDependencies } from './dependencies';

/** The longest gap between two looks at the base fee in a wait's first day, and after it. */
export const maxFeeWaitGapMs = { firstDay: 5 * 60_000, later: 60 * 60_000 };

const dayMs = 86_400_000;

/**
 * When to look at the base fee again for a payment that has waited `waitedMs` under its ceiling:
 * at the chain's pace at first, then after half as long as it has waited, at most five minutes
 * apart in its first day and an hour after that. Each look is an activity and a timer (about six
 * events): a day's wait is some 300 looks, each later day 24, so a month stays near 6,000 events.
 */
export const feeWaitGapMs = (waitedMs: number, chainPaceMs: number): number =>
  Math.min(
    waitedMs < dayMs ? maxFeeWaitGapMs.firstDay : maxFeeWaitGapMs.later,
    Math.max(chainPaceMs, Math.floor(waitedMs / 2)),
  );

export interface FeeCeilingLook {
  intentId: string;
  /** How long the run has waited under the ceiling so far. */
  waitedMs: number;
}

export type FeeCeilingAnswer = { fits: true } | { fits: false; retryAfterMs: number };

/**
 * Whether the watched head's base fee is under the payment's own ceiling (maxFeePerGas), so it
 * can be bid for; if not, the intent says so (reason `fee_above_ceiling`) and the run looks again
 * after `retryAfterMs`, unsigned, holding nothing. A payment signed already, or with no ceiling,
 * fits: its bids are bounded where they are made (chain/fee-policy.ts).
 */
export const feeUnderCeiling =
  ({ db, chains, clock }: ActivityDependencies) =>
  async ({ intentId, waitedMs }: FeeCeilingLook): Promise<FeeCeilingAnswer> => {
    const intent = await getIntent(db.kysely, intentId);
    const ceiling = intent.maxFeePerGas;
    if (!ceiling || !notYetSignedStatuses.has(intent.status)) return { fits: true };
    const chain = chains.get(intent.chainId);
    const { baseFeePerGas } = await chain.blocksSince();
    if (baseFeePerGas <= ceiling) return { fits: true };
    const text =
      `waiting unsigned: the base fee ${formatGwei(baseFeePerGas)} gwei is above its ` +
      `maxFeePerGas ${formatGwei(ceiling)} gwei`;
    // Said when it starts waiting, not at each look: the same words again would only bump the
    // version (the figure in them is the one the wait began at).
    if (intent.reasonCode !== ReasonCode.feeAboveCeiling) {
      await transitionIntent(
        db.kysely,
        intent,
        { status: intent.status, reason: { code: ReasonCode.feeAboveCeiling, text } },
        clock.now(),
      );
    }
    return { fits: false, retryAfterMs: feeWaitGapMs(waitedMs, chain.nextLookInMs()) };
  };

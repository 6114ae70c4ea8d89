import { defineQuery } from '@temporalio/workflow';
import type { IntentStatus } from '../domain/intent';
import type { ReasonCode } from '../domain/reason-codes';

/** What an intent's workflow answers to `intentProgress`: where it is, for a person or a script. */
export interface PaymentIntentProgress {
  intentId: string;
  status: IntentStatus;
  txHash: string | null;
  blockNumber: string | null;
  reason: string | null;
  /** The reason's code (domain/reason-codes.ts); absent in results recorded before codes. */
  reasonCode?: ReasonCode | null;
  /** Times the throttle said "not now" before this intent got its permit. */
  permitRefusals: number;
  /** Every transaction hash that has been the intent's, in order (replacements, re-signs). */
  txHashes: string[];
}

export const intentProgressQuery = defineQuery<PaymentIntentProgress>('intentProgress');

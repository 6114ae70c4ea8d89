import { defineQuery } from '@temporalio/workflow';
import type { IntentStatus } from '../domain/intent';

/** What an intent's workflow answers to `intentProgress`: where it is, for a person or a script. */
export interface PaymentIntentProgress {
  intentId: string;
  status: IntentStatus;
  txHash: string | null;
  blockNumber: string | null;
  reason: string | null;
  /** Times the throttle said "not now" before this intent got its permit. */
  permitRefusals: number;
  /** Every transaction hash that has been the intent's, in order (replacements, re-signs). */
  txHashes: string[];
}

export const intentProgressQuery = defineQuery<PaymentIntentProgress>('intentProgress');

import { upsertSearchAttributes } from '@temporalio/workflow';
import type { IntentStatus } from '../../domain/intent';
import type { PaymentIntentProgress } from './messages';
import { intentStatusKey } from '../search-attributes';
import { statusesShownWithLocalSteps } from './patches';

/**
 * Moves the intent to a status, as the progress query shows it, and shows it to visibility
 * (the IntentStatus search attribute) when it differs from what visibility shows — under local
 * steps only the statuses an operator filters on.
 */
export function statusKeeper(progress: PaymentIntentProgress, localSteps: boolean) {
  // What the workflow started with (its IntentStatus search attribute, from the intent's row).
  let shown: IntentStatus = progress.status;
  return (status: IntentStatus) => {
    if (status === progress.status) return;
    progress.status = status;
    if (status === shown || (localSteps && !statusesShownWithLocalSteps.has(status))) return;
    shown = status;
    upsertSearchAttributes([{ key: intentStatusKey, value: status }]);
  };
}

export type EnterStatus = ReturnType<typeof statusKeeper>;

/** The intent's current transaction, and its history for the progress query. */
export function noteTxHash(progress: PaymentIntentProgress, txHash: string): void {
  progress.txHash = txHash;
  if (!progress.txHashes.includes(txHash)) progress.txHashes.push(txHash);
}

import { ApplicationFailure, sleep } from '@temporalio/workflow';
import type { ConfirmResult } from '../../activities/confirm';
import { defaultConfirmTimeoutMs } from '../../domain/intent-timings';
import type { PaymentIntentProgress } from '../intent-progress';
import { noteTxHash } from './progress';
import { confirm } from './steps';

/** The failure type of a transaction not confirmed in time (the intent goes to review). */
const confirmationTimeoutType = 'ConfirmationTimeout';

/**
 * Looks at the intent's transactions until one is mined deep enough (or reverted, or cancelled
 * on-chain); not within `timeoutMs`, a ConfirmationTimeout failure that sends it to review.
 */
export async function waitForConfirmations(
  intentId: string,
  timeoutMs: number = defaultConfirmTimeoutMs,
  progress: PaymentIntentProgress,
): Promise<Exclude<ConfirmResult, { state: 'pending' }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await confirm({ intentId });
    if (result.state !== 'pending') return result;
    if (result.txHash) noteTxHash(progress, result.txHash);
    if (Date.now() >= deadline) {
      throw ApplicationFailure.nonRetryable(
        `transaction ${progress.txHash} not confirmed within ${timeoutMs / 1000}s`,
        confirmationTimeoutType,
      );
    }
    await sleep(Math.min(result.retryAfterMs, deadline - Date.now()));
  }
}

import { ApplicationFailure, condition, setHandler, sleep } from '@temporalio/workflow';
import type { ConfirmResult } from '../../activities/confirm';
import { ErrorName } from '../../domain/error-catalogue';
import { defaultConfirmTimeoutMs } from '../../domain/intent-timings';
import { type PaymentIntentProgress, transactionSeenSignal } from './messages';
import { noteTxHash } from './progress';
import { confirm } from './steps';
import type { UnminedRequests } from './unmined-requests';

/**
 * Looks at the intent's transactions until one is mined deep enough (or reverted, or cancelled
 * on-chain); not within `timeoutMs`, a ConfirmationTimeout failure that sends it to review. A
 * transaction a person asked for meanwhile (`requests`: a cancel or a speed-up) is looked at at
 * once, and a cancel has `timeoutMs` of its own. A block that holds one of its transactions
 * (transactionSeenSignal) ends the wait at once too.
 */
export async function waitForConfirmations(
  intentId: string,
  timeoutMs: number = defaultConfirmTimeoutMs,
  progress: PaymentIntentProgress,
  requests: UnminedRequests,
): Promise<Exclude<ConfirmResult, { state: 'pending' }>> {
  let deadline = Date.now() + timeoutMs;
  let cancelsSeen = requests.cancelsSigned();
  let signedSeen = requests.signed();
  let sightings = 0;
  setHandler(transactionSeenSignal, () => void (sightings += 1));
  for (;;) {
    const sightingsBefore = sightings;
    signedSeen = requests.signed();
    if (requests.cancelsSigned() !== cancelsSeen) {
      cancelsSeen = requests.cancelsSigned();
      deadline = Date.now() + timeoutMs;
    }
    const result = await confirm({ intentId });
    if (result.state !== 'pending') return result;
    if (result.txHash) noteTxHash(progress, result.txHash);
    if (Date.now() >= deadline) {
      throw ApplicationFailure.nonRetryable(
        `transaction ${progress.txHash} not confirmed within ${timeoutMs / 1000}s`,
        ErrorName.confirmationTimeout,
      );
    }
    // A sighting that came during the look is answered by the next look, at once.
    if (sightings !== sightingsBefore) continue;
    const waitMs = Math.min(result.retryAfterMs, deadline - Date.now());
    // The same timer as a sleep (a history without a cancel or a sighting replays unchanged); 0
    // stays a sleep, as condition(fn, 0) would record a patch marker.
    if (waitMs > 0) {
      await condition(
        () => requests.signed() !== signedSeen || sightings !== sightingsBefore,
        waitMs,
      );
    } else await sleep(waitMs);
  }
}

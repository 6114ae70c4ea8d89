import { Context } from '@temporalio/activity';
import type { BroadcastOutcome, Chain } from '../../chain/chain';
import type { SignedTransfer } from '../../domain/transfer';
import type { PermitSource } from '../../throttle/permit-source';
import { unlessCancelled } from '../liveness';
import { departing } from '../../chain/call-departures';

/**
 * A send the pace holds back for less than this in all waits inside the step (cancellable, like
 * the step itself); a longer hold becomes the step's retry delay, a Temporal timer. Failing into a
 * retry round trip for a few tens of ms was what kept sends below the quota.
 */
const paceWaitInStepMs = 1000;

/**
 * Sends persisted bytes at the RPC pace: `paced` when the quota says not yet for longer than a
 * moment (nothing was sent). Abandoning a send (drain timeout, lost heartbeat) is safe: the bytes
 * are stored, the next look sends the same ones.
 */
export async function sendSigned(
  chain: Chain,
  throttle: PermitSource,
  signed: SignedTransfer,
): Promise<BroadcastOutcome | { pacedMs: number }> {
  for (let waitedMs = 0; ;) {
    // While the provider's Retry-After holds calls back, the pace is not asked: sends it let go
    // meanwhile would all reach the provider together when the pause ends.
    const pausedMs = chain.pausedForMs();
    const turn = pausedMs > 0 ? { waitMs: pausedMs } : await throttle.reserveSend();
    if ('departure' in turn) {
      return unlessCancelled(departing(turn.departure, () => chain.broadcast(signed)));
    }
    if (waitedMs + turn.waitMs > paceWaitInStepMs) return { pacedMs: turn.waitMs };
    await Context.current().sleep(turn.waitMs);
    waitedMs += turn.waitMs;
  }
}

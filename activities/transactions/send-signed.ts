import type { BroadcastOutcome, Chain } from '../../chain/chain';
import type { SignedTransfer } from '../../domain/transfer';
import type { PermitSource } from '../../throttle/permit-source';
import { unlessCancelled } from '../liveness';

/**
 * Sends persisted bytes at the RPC pace: `paced` when the quota says not yet (nothing was sent).
 * Abandoning a send (drain timeout, lost heartbeat) is safe: the bytes are stored, the next look
 * sends the same ones.
 */
export async function sendSigned(
  chain: Chain,
  throttle: PermitSource,
  signed: SignedTransfer,
): Promise<BroadcastOutcome | { pacedMs: number }> {
  const waitMs = await throttle.reserveSend();
  if (waitMs > 0) return { pacedMs: waitMs };
  return unlessCancelled(chain.broadcast(signed));
}

/** A hot wallet as the relayer sees it when an intent that named none is about to be signed. */
export interface WalletLane {
  address: `0x${string}`;
  /** Our signed transactions of the wallet not confirmed yet: its nonces in flight. */
  pending: number;
  /** Its balance in the latest block the chain view read. */
  balance: bigint;
  /** What its signed transactions not yet seen mined may still take: value + gas × fee cap. */
  committed: bigint;
  /** An intent of the wallet waiting in review with a nonce: every later nonce would wait too. */
  blockedBy?: string;
}

/**
 * The wallet an unpinned transfer costing `cost` (value + gas × fee cap) is signed with: of the
 * wallets not blocked by an intent in review that can pay for it on top of what they have
 * committed, the one with the fewest nonces in flight, so the lanes fill evenly; ties go to the
 * first in the list (the configured order). Undefined when none can.
 */
export function chooseWallet(lanes: readonly WalletLane[], cost: bigint): WalletLane | undefined {
  let best: WalletLane | undefined;
  for (const lane of lanes) {
    if (lane.blockedBy !== undefined || lane.balance - lane.committed < cost) continue;
    if (!best || lane.pending < best.pending) best = lane;
  }
  return best;
}

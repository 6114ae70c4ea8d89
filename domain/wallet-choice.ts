/** A hot wallet as the relayer sees it when an intent that named none is about to be signed. */
export interface WalletLane {
  address: `0x${string}`;
  /** Our signed transactions of the wallet not confirmed yet: its nonces in flight. */
  pending: number;
  /** Its balance in the latest block the chain view read. */
  balance: bigint;
  /** What its signed transactions not yet seen mined may still take: value + gas × fee cap. */
  committed: bigint;
  /** For a token intent: what the wallet holds of the token, and its transfers in flight take. */
  token?: { balance: bigint; committed: bigint };
  /** An intent of the wallet waiting in review with a nonce: every later nonce would wait too. */
  blockedBy?: string;
}

/**
 * The wallet an unpinned transfer costing `cost` (value + gas × fee cap, native) and, for a token
 * intent, `tokenAmount` of the token is signed with: of the wallets not blocked by an intent in
 * review that can pay both on top of what they have committed, the one with the fewest nonces in
 * flight, so the lanes fill evenly; ties go to `preferred` (a token transfer already simulated
 * from it), then to the first in the list (the configured order). Undefined when none can.
 */
export function chooseWallet(
  lanes: readonly WalletLane[],
  cost: bigint,
  tokenAmount = 0n,
  preferred?: string,
): WalletLane | undefined {
  const canPay = (lane: WalletLane) =>
    lane.blockedBy === undefined &&
    lane.balance - lane.committed >= cost &&
    (tokenAmount === 0n ||
      (!!lane.token && lane.token.balance - lane.token.committed >= tokenAmount));
  let best: WalletLane | undefined;
  for (const lane of lanes) {
    if (!canPay(lane)) continue;
    if (!best || lane.pending < best.pending) best = lane;
  }
  const kept = lanes.find((lane) => lane.address === preferred);
  return kept && best && canPay(kept) && kept.pending <= best.pending ? kept : best;
}

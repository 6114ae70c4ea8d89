import type { Hex } from './transfer';

/** What the block follower knows after reading the blocks since its last look at a chain. */
export interface BlockSightingsInput {
  /** The payments whose transaction one of the new blocks holds. */
  mined: readonly string[];
  /** The newest transaction of each payment in flight on the chain. */
  inFlight: readonly { intentId: string; txHash: Hex; maxFeePerGas: bigint }[];
  /** The head's base fee. */
  baseFeePerGas: bigint;
  /** Transactions already told they are outbid by the base fee. */
  toldOutbid: ReadonlySet<Hex>;
}

export interface BlockSightings {
  /** The payments to wake (each once): to look now, not at their next spaced look. */
  wake: string[];
  /** The outbid transactions told so far that are still in flight: each is told once. */
  toldOutbid: Set<Hex>;
}

/**
 * Which payments the new blocks concern: those a block mined, and those whose newest fee cap
 * the base fee has passed (it cannot be mined as it is: its owner outbids it now). A transaction
 * is told it is outbid once; one no longer in flight is forgotten.
 */
export function decideBlockSightings(input: BlockSightingsInput): BlockSightings {
  const wake = new Set(input.mined);
  const toldOutbid = new Set<Hex>();
  for (const { intentId, txHash, maxFeePerGas } of input.inFlight) {
    if (maxFeePerGas >= input.baseFeePerGas) continue;
    toldOutbid.add(txHash);
    if (!input.toldOutbid.has(txHash)) wake.add(intentId);
  }
  return { wake: [...wake], toldOutbid };
}

import type { Hex } from '../domain/transfer';

/** A transfer into an address: the native coin, or an ERC-20 by its Transfer log. */
export interface InboundTransfer {
  txHash: Hex;
  /** The Transfer log's position among its receipt's logs; -1 for the native coin. */
  position: number;
  to: Hex;
  /** `native`, or the token contract that logged it. */
  asset: 'native' | Hex;
  amount: bigint;
  blockNumber: bigint;
  blockHash: Hex;
}

/** One transaction's transfers (to any address) and the block it is in. */
export interface TransactionTransfers {
  blockNumber: bigint;
  blockHash: Hex;
  transfers: InboundTransfer[];
}

/** What one mined sweep moved out of each forwarder it emptied, by asset, and its gas. */
export interface SweepOutcome {
  blockNumber: bigint;
  gasPaid: bigint;
  /** Forwarder address → asset (`native` or the token) → amount. */
  moved: Map<string, Map<string, bigint>>;
}

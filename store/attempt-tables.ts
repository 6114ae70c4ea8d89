import type { AttemptCause } from '../domain/transfer';
import type { Amount, Timestamp } from './column-types';

/**
 * Every transaction signed for an intent, persisted before it is sent. Replacements share the
 * nonce (only one can be mined); a new nonce only after the old one was settled by a stranger.
 */
export interface TransactionAttemptsTable {
  intent_id: string;
  attempt: number;
  nonce: number;
  tx_hash: string;
  raw_tx: string;
  gas: Amount;
  max_fee_per_gas: Amount;
  max_priority_fee_per_gas: Amount;
  cause: AttemptCause;
  created_at: Timestamp;
}

/** A zero-value self-transfer signed to use a nonce nobody else will, so later ones can land. */
export interface NonceFillsTable {
  chain_id: number;
  address: string;
  nonce: number;
  tx_hash: string;
  raw_tx: string;
  created_at: Timestamp;
}

/** A nonce of ours sent again for the payments waiting behind it (one per block, fleet-wide). */
export interface LineRepairsTable {
  chain_id: number;
  address: string;
  nonce: number;
  block_number: string;
  tx_hash: string;
}

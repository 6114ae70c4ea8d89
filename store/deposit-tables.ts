import type { DepositStatus } from '../domain/deposit';
import type { Amount, BigIntColumn, Timestamp } from './column-types';

// Tenants' deposit addresses, what reached them, and how far each chain was read (migration 0025).

export interface DepositAddressesTable {
  chain_id: number;
  address: string;
  tenant_id: string;
  /** 0 for the tenant's address by default on the chain; more on request. */
  address_index: number;
  /** The salt the factory deploys it with, and the factory (the address follows from both). */
  salt: string;
  factory: string;
  created_at: Timestamp;
}

export interface DepositsTable {
  id: string;
  chain_id: number;
  tx_hash: string;
  /** The Transfer log's index in its block; -1 for the native coin. */
  log_index: number;
  address: string;
  tenant_id: string;
  /** `native`, or the token's address. */
  asset: string;
  amount: Amount;
  block_number: BigIntColumn;
  block_hash: string;
  status: DepositStatus;
  detected_at: Timestamp;
  credited_at: Timestamp | null;
  updated_at: Timestamp;
}

export interface DepositScansTable {
  chain_id: number;
  /** The first block not yet read for deposits. */
  next_block: BigIntColumn;
  updated_at: Timestamp;
}

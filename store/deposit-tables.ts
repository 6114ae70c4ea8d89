import type { DepositStatus } from '../domain/deposit';
import type { ColumnType } from 'kysely';
import type { Amount, BigIntColumn, Timestamp } from './column-types';

// Tenants' deposit addresses, what reached them, how far each chain was read, the sweeps that
// emptied them and each chain's last reconciliation (migration 0025).

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
  /** The tenant's reference and metadata (JSON) for it (migration 0029), copied to deposits. */
  reference: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** The sweep that took it to the treasury (its intent); null: not swept yet. */
  sweep_intent_id: string | null;
  /** Its address's reference and metadata when it was found (migration 0029). */
  reference: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface DepositScansTable {
  chain_id: number;
  /** The first block not yet read for deposits. */
  next_block: BigIntColumn;
  updated_at: Timestamp;
}

export interface DepositSweepsTable {
  /** The house's intent (treasury → factory) that sweeps the address. */
  intent_id: string;
  chain_id: number;
  address: string;
  created_at: Timestamp;
  /** Once its receipt was read (after it confirmed): its block, its gas, what it moved. */
  block_number: BigIntColumn | null;
  gas_paid: Amount | null;
  /** JSON: asset (`native` or the token) → amount moved, as decimal text. */
  swept: string | null;
}

export interface DepositReconciliationsTable {
  chain_id: number;
  /** The block the chain's side was read at. */
  block_number: BigIntColumn;
  differences: number;
  /** JSON: the report (domain/deposit-reconciliation.ts). */
  report: string;
  checked_at: Timestamp;
}

/** The deposits' part of the schema (store/schema.ts). */
export interface DepositTables {
  deposit_addresses: DepositAddressesTable;
  deposits: DepositsTable;
  deposit_scans: DepositScansTable;
  deposit_sweeps: DepositSweepsTable;
  deposit_reconciliations: DepositReconciliationsTable;
}

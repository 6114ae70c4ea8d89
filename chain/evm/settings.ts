import type { FeeFamily } from '../fee-policy';
import type { Hex } from '../../domain/transfer';
import type { Treasury } from '../chain';
import type { ChainReads } from '../chain-reads';
import type { Finality, GasPricing } from '../chain-traits';
import type { FeePolicy } from '../fee-policy';
import type { RpcGate } from '../metered-transport';
import type { WalletSigner } from '../signers/wallet-signer';

/** One JSON-RPC request as one endpoint answered it: the per-endpoint metrics count these. */
export interface RpcResponseEvent {
  chainId: number;
  /** host:port of the endpoint (never its path or credentials: provider keys live there). */
  endpoint: string;
  method: string;
  ok: boolean;
}

export interface EvmChainSettings {
  chainId: number;
  rpcUrls: string[];
  /** The hot wallets, each with the key that signs for it (local, remote signer, KMS). */
  signers: readonly WalletSigner[];
  confirmations: number;
  blockTimeMs: number;
  pollIntervalMs: number;
  rpcTimeoutMs: number;
  stuckAfterMs: number;
  /** `auto`: three times the expected inclusion time (the block time, or the poll interval). */
  delayedAfterMs?: number | 'auto';
  delayedNoticesMax?: number;
  speedUpsMax?: number;
  /** The least base fee the chain charges (wei; default 0). */
  baseFeeFloorPerGas?: bigint;
  /** How the chain charges for gas (default ethereum). */
  family?: FeeFamily;
  /** The least tip the chain's nodes take (wei; default 0): bids meet it. */
  minPriorityFeePerGas?: bigint;
  fees: FeePolicy;
  /** Type-2 transactions (max fee and tip), or type-0 (`gasPrice`) on a chain without EIP-1559. */
  gasPricing?: GasPricing;
  /** A hot wallet below this (wei) is low on this chain. */
  lowBalanceWei?: bigint;
  /**
   * The chain's treasury (its signer is `treasurySigner`, not one of `signers`: it pays no intent).
   */
  treasury?: Treasury;
  /** The factory tenants' deposit addresses follow from (chain/deposit-addresses.ts). */
  depositFactory?: Hex;
  /** Signs the treasury's top-ups, in a process that holds its key. */
  treasurySigner?: WalletSigner;
  /** When a block is final: the node's `finalized` tag (the default), or this many blocks deep. */
  finality?: Finality;
  onRpcResponse?: (event: RpcResponseEvent) => void;
  /** Each JSON-RPC call a span (traces on); off, the transport is not even wrapped. */
  traced?: boolean;
  /** The provider's budget: every call of every endpoint spends from that endpoint's. */
  budget?: ChainBudget;
  /** Shares the process's own reads of head, receipts and balances with the fleet. */
  shareReads?: (chainId: number, own: ChainReads) => ChainReads;
}

export interface ChainBudget {
  gateFor(rpcUrl: string): RpcGate;
  unitsOf(method: string): number;
  /** The most units one call may cost (the budget's burst). */
  burstUnits: number;
}

/** Blocks the watcher keeps behind the head: what a reorg can replace, twice the depth. */
export const blocksKept = (confirmations: number): number => Math.max(64, confirmations * 2);

export const endpointLabel = (url: string): string => new URL(url).host;

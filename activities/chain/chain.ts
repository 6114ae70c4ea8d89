/**
 * What the payment steps need from a chain. EVM is the one implementation today (evm-chain.ts);
 * a chain with another replay guard (Solana blockhash, TON seqno, Sui object version) would
 * implement the same seam without touching workflows.
 */
export type Hex = `0x${string}`;

export interface TransferRequest {
  from: Hex;
  to: Hex;
  value: bigint;
}

/** Everything needed to sign, decided before the nonce is taken (needs RPC, so outside locks). */
export interface TransferPlan extends TransferRequest {
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface SignedTransfer {
  rawTx: Hex;
  txHash: Hex;
}

/** `nonce-taken`: the node counted our nonce for a transaction that is not ours. */
export type BroadcastOutcome = 'sent' | 'already-known' | 'nonce-taken';

export type TransactionObservation =
  | { state: 'unknown' }
  | { state: 'pending' }
  | { state: 'mined'; blockNumber: bigint; confirmations: number; succeeded: boolean };

export interface Chain {
  readonly chainId: number;
  /** Blocks on top of the receipt's block (counting it) before an intent is confirmed. */
  readonly confirmations: number;
  /** How long to wait before looking at a pending transaction again. */
  readonly pollIntervalMs: number;
  readonly walletAddresses: readonly Hex[];
  pendingNonce(address: Hex): Promise<number>;
  planTransfer(request: TransferRequest): Promise<TransferPlan>;
  signTransfer(plan: TransferPlan, nonce: number): Promise<SignedTransfer>;
  /**
   * Hands the signed bytes to the node. Re-sending bytes the node already has, or already mined,
   * is success: the hash is what identifies the payment, not the node's reply.
   */
  broadcast(signed: SignedTransfer): Promise<BroadcastOutcome>;
  observe(txHash: Hex): Promise<TransactionObservation>;
  /** The transfer a hash names, as the node has it (for an operator's claim); undefined if none. */
  lookupTransfer(txHash: Hex): Promise<ObservedTransfer | undefined>;
  /** Transactions of `address` already mined: every nonce below it is used for good. */
  minedNonce(address: Hex): Promise<number>;
  /** The head block: answers only if an endpoint is reachable. */
  blockNumber(): Promise<bigint>;
}

export interface ObservedTransfer extends TransferRequest {
  chainId: number;
  nonce: number;
  observation: TransactionObservation;
}

export interface ChainRegistry {
  /** Throws UnknownChain for a chain this process has no RPC endpoints for. */
  get(chainId: number): Chain;
  readonly chainIds: readonly number[];
}

/**
 * A transfer as the relayer plans, signs and stores it, whatever the chain: pure types, shared by
 * the chain seam (chain/) and the books (store/).
 */
export type Hex = `0x${string}`;

export interface TransferRequest {
  from: Hex;
  to: Hex;
  value: bigint;
  /** Call data: a token's `transfer(recipient, amount)`; absent for a plain value transfer. */
  data?: Hex;
  /** The payment's own ceiling per gas: its bids stay under it as under the chain's caps. */
  feeCeiling?: bigint;
}

/**
 * Everything needed to sign, decided before the nonce is taken (needs RPC, so outside locks).
 * The fee bid is always within the chain's caps (fee-policy.ts).
 */
export interface TransferPlan extends TransferRequest {
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface SignedTransfer {
  rawTx: Hex;
  txHash: Hex;
}

/**
 * Why a transaction attempt was signed: the first, a replacement at its nonce (`fee_bump`), a
 * re-sign at a new nonce (`nonce_reassigned`), or `cancel`: a zero-value transfer to the wallet
 * itself, to take the nonce back.
 */
export type AttemptCause = 'first' | 'fee_bump' | 'nonce_reassigned' | 'cancel';

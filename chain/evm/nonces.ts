import type { Hex } from '../../domain/transfer';
import type { EvmContext, RpcErrorType } from './context';
import { blockNumber } from './head';

// A wallet's nonces as the chain counts them: with its pool, mined, and mined deep enough.

type NonceParameters = { address: Hex };
type NonceReturnType = number;
export type PendingNonceParameters = NonceParameters;
export type PendingNonceReturnType = NonceReturnType;
export type PendingNonceErrorType = RpcErrorType;
export type MinedNonceParameters = NonceParameters;
export type MinedNonceReturnType = NonceReturnType;
export type MinedNonceErrorType = RpcErrorType;
export type SettledNonceParameters = NonceParameters;
export type SettledNonceReturnType = NonceReturnType;
export type SettledNonceErrorType = RpcErrorType;

/** The next nonce the node would give `address`, its pool's transactions counted. */
export function pendingNonce(
  { rpc, client }: EvmContext,
  { address }: PendingNonceParameters,
): Promise<PendingNonceReturnType> {
  return rpc(client.getTransactionCount({ address, blockTag: 'pending' }));
}

/** The nonce of `address` at the head: its mined transactions counted. */
export function minedNonce(
  { rpc, client }: EvmContext,
  { address }: MinedNonceParameters,
): Promise<MinedNonceReturnType> {
  return rpc(client.getTransactionCount({ address, blockTag: 'latest' }));
}

/** The nonce of `address` at the depth a transaction counts as confirmed. */
export async function settledNonce(
  context: EvmContext,
  { address }: SettledNonceParameters,
): Promise<SettledNonceReturnType> {
  const head = await blockNumber(context);
  const depth = BigInt(context.settings.confirmations - 1);
  const at = head > depth ? head - depth : 0n;
  return context.rpc(context.client.getTransactionCount({ address, blockNumber: at }));
}

import type { Hex } from '../../domain/transfer';
import type { EvmContext, RpcErrorType } from './context';
import { blockNumber } from './head';

// A wallet's nonces as the chain counts them: with its pool, mined, and mined deep enough.

export type NonceParameters = { address: Hex };
export type NonceReturnType = number;
export type NonceErrorType = RpcErrorType;

/** The next nonce the node would give `address`, its pool's transactions counted. */
export function pendingNonce(
  { rpc, client }: EvmContext,
  { address }: NonceParameters,
): Promise<NonceReturnType> {
  return rpc(client.getTransactionCount({ address, blockTag: 'pending' }));
}

/** The nonce of `address` at the head: its mined transactions counted. */
export function minedNonce(
  { rpc, client }: EvmContext,
  { address }: NonceParameters,
): Promise<NonceReturnType> {
  return rpc(client.getTransactionCount({ address, blockTag: 'latest' }));
}

/** The nonce of `address` at the depth a transaction counts as confirmed. */
export async function settledNonce(
  context: EvmContext,
  { address }: NonceParameters,
): Promise<NonceReturnType> {
  const head = await blockNumber(context);
  const depth = BigInt(context.settings.confirmations - 1);
  const at = head > depth ? head - depth : 0n;
  return context.rpc(context.client.getTransactionCount({ address, blockNumber: at }));
}

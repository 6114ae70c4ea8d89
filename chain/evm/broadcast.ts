import { recoverTransactionAddress, type TransactionSerializedEIP1559 } from 'viem';
import type { SignedTransfer } from '../../domain/transfer';
import type { BroadcastOutcome } from '../chain';
import { classifyRpcError } from '../evm-rpc-errors';
import type { EvmContext, RpcErrorType } from './context';

export type BroadcastParameters = SignedTransfer;
export type BroadcastReturnType = BroadcastOutcome;
export type BroadcastErrorType = RpcErrorType;

/**
 * Sends signed bytes: `sent`, or what the node's refusal means for them (already known, their
 * nonce taken by another transaction, a replacement needed); any other refusal is thrown typed.
 */
export async function broadcast(
  { client, findTransaction, typed }: EvmContext,
  signed: BroadcastParameters,
): Promise<BroadcastReturnType> {
  try {
    await client.sendRawTransaction({ serializedTransaction: signed.rawTx });
    return 'sent';
  } catch (error) {
    const { action } = classifyRpcError(error);
    if (action === 'sent') return 'already-known';
    if (action === 'reconcile') {
      // "Nonce too low" reads the same whether *these* bytes were mined or another
      // transaction used the nonce: only a lookup by our hash tells them apart.
      return (await findTransaction(signed.txHash)) ? 'already-known' : 'nonce-taken';
    }
    if (action === 'replace') return 'replace-needed';
    throw typed(
      error,
      await recoverTransactionAddress({
        serializedTransaction: signed.rawTx as TransactionSerializedEIP1559,
      }),
    );
  }
}

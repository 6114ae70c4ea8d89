import {
  getAddress,
  hexToBigInt,
  TransactionNotFoundError,
  zeroAddress,
  type TransactionReceipt,
} from 'viem';
import type { Hex } from '../../domain/transfer';
import type { ObservedTransfer, TransactionObservation } from '../chain';
import { tokenTransfersOf } from '../erc20';
import type { EvmContext, RpcErrorType } from './context';

export type ObserveParameters = { txHash: Hex; signedAt: Date };
export type ObserveReturnType = TransactionObservation;
export type ObserveErrorType = RpcErrorType;

export type ObserveAtNodeParameters = { txHash: Hex };
export type ObserveAtNodeReturnType = TransactionObservation;
export type ObserveAtNodeErrorType = RpcErrorType;

export type KnownToAnyEndpointParameters = { txHash: Hex };
export type KnownToAnyEndpointReturnType = boolean;
export type KnownToAnyEndpointErrorType = RpcErrorType;

export type LookupTransferParameters = { txHash: Hex };
export type LookupTransferReturnType = ObservedTransfer | undefined;
export type LookupTransferErrorType = RpcErrorType;

/**
 * Where a transaction signed at `signedAt` stands, from the watched blocks (one head read and
 * one receipts read per block, shared by every look): mined or not mined.
 */
export async function observe(
  { rpc, watcher, lookMaxAgeMs }: EvmContext,
  { txHash, signedAt }: ObserveParameters,
): Promise<ObserveReturnType> {
  const head = await rpc(watcher.currentHead(lookMaxAgeMs));
  const sighting = watcher.sighting(txHash, signedAt);
  if (sighting.state === 'not-mined') return { state: 'not-mined' };
  const receipt = await rpc(
    sighting.state === 'mined'
      ? watcher.receiptIn(sighting.block, txHash)
      : watcher.receiptOf(txHash),
  );
  return receipt ? minedBy(receipt, head.block.number) : { state: 'not-mined' };
}

/** The node's own answer for a hash: its receipt, else whether its pool has the bytes. */
export async function observeAtNode(
  { rpc, watcher, lookMaxAgeMs, findTransaction }: EvmContext,
  { txHash }: ObserveAtNodeParameters,
): Promise<ObserveAtNodeReturnType> {
  const receipt = await rpc(watcher.receiptOf(txHash));
  if (receipt) return minedBy(receipt, (await rpc(watcher.currentHead(lookMaxAgeMs))).block.number);
  return (await findTransaction(txHash)) ? { state: 'pending' } : { state: 'unknown' };
}

/**
 * Whether any endpoint has the transaction (in its pool or mined), each asked on its own: false
 * only when every one answered that it does not. Throws when one cannot be asked.
 */
export async function knownToAnyEndpoint(
  { rpc, endpointClients }: EvmContext,
  { txHash }: KnownToAnyEndpointParameters,
): Promise<KnownToAnyEndpointReturnType> {
  const answers = await Promise.all(
    endpointClients.map((endpoint) =>
      rpc(
        endpoint.getTransaction({ hash: txHash }).then(
          () => true,
          (error: unknown) => {
            if (error instanceof TransactionNotFoundError) return false;
            throw error;
          },
        ),
      ),
    ),
  );
  return answers.includes(true);
}

/** A transaction as the node has it (any sender's), with where it stands. */
export async function lookupTransfer(
  context: EvmContext,
  { txHash }: LookupTransferParameters,
): Promise<LookupTransferReturnType> {
  const transaction = await context.findTransaction(txHash);
  if (!transaction) return undefined;
  return {
    chainId: transaction.chainId ?? context.chainId,
    from: getAddress(transaction.from),
    to: transaction.to ? getAddress(transaction.to) : zeroAddress,
    value: transaction.value,
    data: transaction.input,
    nonce: transaction.nonce,
    observation: await observeAtNode(context, { txHash }),
  };
}

/** A receipt seen with the head at `headNumber` (or later: the receipt's block counts). */
const minedBy = (receipt: TransactionReceipt, headNumber: bigint): TransactionObservation => ({
  state: 'mined',
  blockNumber: receipt.blockNumber,
  confirmations: Number(
    (headNumber > receipt.blockNumber ? headNumber : receipt.blockNumber) -
      receipt.blockNumber +
      1n,
  ),
  succeeded: receipt.status === 'success',
  gasPaid: gasPaidBy(receipt),
  transfers: tokenTransfersOf(receipt.logs),
});

/**
 * The native wei a mined transaction cost its sender: gas used × effective gas price, plus the
 * L1 data fee an OP-stack rollup's receipt names (`l1Fee`, left as the node sent it).
 */
export const gasPaidBy = (receipt: TransactionReceipt): bigint => {
  const l1Fee = (receipt as { l1Fee?: unknown }).l1Fee;
  const dataFee =
    typeof l1Fee === 'bigint' ? l1Fee : typeof l1Fee === 'string' ? hexToBigInt(l1Fee as Hex) : 0n;
  return receipt.gasUsed * receipt.effectiveGasPrice + dataFee;
};

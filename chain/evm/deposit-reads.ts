import {
  getAddress,
  parseAbiItem,
  parseEventLogs,
  TransactionReceiptNotFoundError,
  type TransactionReceipt,
} from 'viem';
import type { Hex } from '../../domain/transfer';
import type { InboundTransfer, TransactionTransfers } from '../inbound-transfer';
import type { EvmContext, RpcErrorType } from './context';

// What arrived at the tenants' deposit addresses: read through the chain's background client, so
// every call waits behind the payments' own in the RPC budget's line.

const transferEvent = parseAbiItem(
  'event Transfer(address indexed from, address indexed to, uint256 value)',
);

const nativePosition = -1;

export type InboundTransfersParameters = {
  addresses: readonly Hex[];
  fromBlock: bigint;
  toBlock: bigint;
};
export type InboundTransfersReturnType = InboundTransfer[];
export type InboundTransfersErrorType = RpcErrorType;

export type InboundOfParameters = { txHash: Hex };
export type InboundOfReturnType = TransactionTransfers | undefined;
export type InboundOfErrorType = RpcErrorType;

/**
 * Every transfer into one of `addresses` mined in blocks `fromBlock`…`toBlock`: tokens by their
 * Transfer logs (any contract: the caller tells registered tokens apart; an ERC-721's Transfer,
 * with its id indexed, does not decode and is left out), the native coin by the blocks'
 * transactions to an address whose receipt succeeded. Value a contract passes on in an internal
 * call makes no transaction to the address and is not found here.
 */
export async function inboundTransfers(
  context: EvmContext,
  { addresses, fromBlock, toBlock }: InboundTransfersParameters,
): Promise<InboundTransfersReturnType> {
  if (addresses.length === 0 || fromBlock > toBlock) return [];
  const { background, rpc } = context;
  const receipts = new Map<Hex, Promise<TransactionReceipt>>();
  const receiptOf = (hash: Hex) => {
    let receipt = receipts.get(hash);
    if (!receipt) {
      receipt = rpc(background.getTransactionReceipt({ hash }));
      receipts.set(hash, receipt);
    }
    return receipt;
  };
  const found: InboundTransfer[] = [];
  const logs = await rpc(
    background.getLogs({
      event: transferEvent,
      args: { to: [...addresses] },
      fromBlock,
      toBlock,
      strict: true,
    }),
  );
  for (const log of logs) {
    const receipt = await receiptOf(log.transactionHash);
    found.push({
      txHash: log.transactionHash,
      position: receipt.logs.findIndex((each) => each.logIndex === log.logIndex),
      to: getAddress(log.args.to),
      asset: getAddress(log.address),
      amount: log.args.value,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
    });
  }
  const watched = new Set(addresses.map((address) => address.toLowerCase()));
  for (let number = fromBlock; number <= toBlock; number++) {
    const block = await rpc(
      background.getBlock({ blockNumber: number, includeTransactions: true }),
    );
    for (const tx of block.transactions) {
      if (!tx.to || tx.value === 0n || !watched.has(tx.to.toLowerCase())) continue;
      if ((await receiptOf(tx.hash)).status !== 'success') continue;
      found.push({
        txHash: tx.hash,
        position: nativePosition,
        to: tx.to,
        asset: 'native',
        amount: tx.value,
        blockNumber: number,
        blockHash: block.hash!,
      });
    }
  }
  return found;
}

/**
 * The transfers of one transaction as the node has it now (every recipient), with the block it is
 * in; undefined when the node has no receipt for it (a reorg took it out, or it never was), and
 * none when it reverted.
 */
export async function inboundOf(
  context: EvmContext,
  { txHash }: InboundOfParameters,
): Promise<InboundOfReturnType> {
  const { background, rpc } = context;
  const receipt = await receiptIfAny(context, txHash);
  if (!receipt) return undefined;
  const { blockNumber, blockHash } = receipt;
  if (receipt.status !== 'success') return { blockNumber, blockHash, transfers: [] };
  const transaction = await rpc(background.getTransaction({ hash: txHash }));
  const transfers: InboundTransfer[] = parseEventLogs({
    abi: [transferEvent],
    logs: receipt.logs,
    strict: true,
  }).map((log) => ({
    txHash,
    position: receipt.logs.findIndex((each) => each.logIndex === log.logIndex),
    to: getAddress(log.args.to),
    asset: getAddress(log.address),
    amount: log.args.value,
    blockNumber,
    blockHash,
  }));
  if (transaction.to && transaction.value > 0n) {
    transfers.push({
      txHash,
      position: nativePosition,
      to: transaction.to,
      asset: 'native',
      amount: transaction.value,
      blockNumber,
      blockHash,
    });
  }
  return { blockNumber, blockHash, transfers };
}

/** A transaction's receipt read in background; undefined when the node has none. */
export const receiptIfAny = (
  { background, typed }: EvmContext,
  hash: Hex,
): Promise<TransactionReceipt | undefined> =>
  background.getTransactionReceipt({ hash }).catch((error: unknown) => {
    if (error instanceof TransactionReceiptNotFoundError) return undefined;
    throw typed(error);
  });

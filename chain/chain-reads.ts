import { NodeAnswerUnfitError } from '../domain/errors';
import {
  BlockNotFoundError,
  formatTransactionReceipt,
  type PublicClient,
  type RpcTransactionReceipt,
  type TransactionReceipt,
} from 'viem';
import type { Hex } from '../domain/transfer';

/**
 * A block as every process of the fleet may need it: enough to follow the chain and find a
 * transaction in it. Which of its transactions are ours each process decides from `from`.
 */
export interface ChainBlock {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  baseFeePerGas: bigint;
  transactions: readonly { hash: Hex; from: Hex; to: Hex | null }[];
}

/** The head as read from the node, and when (Date.now() of the process that read it). */
export interface ReadHead {
  block: ChainBlock;
  readAt: number;
}

/**
 * The reads of a chain whose answer is the same for every process that asks about one block:
 * the head, a block by hash, a block's receipts, a value of a block's state (the tip, a balance).
 * Read from the node by each process (ownChainReads), or once for the fleet (shared-chain-reads).
 */
export interface ChainReads {
  /**
   * The chain's latest block, read within the last `freshWithinMs` (by anyone it is shared with).
   */
  latestBlock(freshWithinMs: number): Promise<ReadHead>;
  blockByHash(hash: Hex): Promise<ChainBlock>;
  /** Every receipt of the block, as the node gives them (raw: so a share stores them as sent). */
  blockReceipts(blockHash: Hex): Promise<RpcTransactionReceipt[]>;
  /** A value of the state at `blockHash` named by `key`, read once per block by `read`. */
  valueAt(blockHash: Hex, key: string, read: () => Promise<bigint>): Promise<bigint>;
}

export const formatReceipts = (raw: readonly RpcTransactionReceipt[]): TransactionReceipt[] =>
  raw.map((receipt) => formatTransactionReceipt(receipt));

/** The reads of one process, from its own client; values are kept for the latest block asked. */
export function ownChainReads(client: PublicClient): ChainReads {
  const block = async (at: { blockTag: 'latest' } | { blockHash: Hex }): Promise<ChainBlock> => {
    const read = await client.getBlock({ ...at, includeTransactions: true });
    if (read.number === null || read.hash === null) {
      throw new NodeAnswerUnfitError({ problem: 'a pending block for a mined one' });
    }
    return {
      number: read.number,
      hash: read.hash,
      parentHash: read.parentHash,
      baseFeePerGas: read.baseFeePerGas ?? 0n,
      transactions: read.transactions.map(({ hash, from, to }) => ({ hash, from, to })),
    };
  };
  let values: { blockHash: Hex; byKey: Map<string, Promise<bigint>> } | undefined;
  return {
    latestBlock: async () => ({ block: await block({ blockTag: 'latest' }), readAt: Date.now() }),
    blockByHash: (hash) => block({ blockHash: hash }),
    async blockReceipts(blockHash) {
      // Raw, as viem's getBlockReceipts asks, and failing as it does for a block the node lacks.
      const receipts = (await client.request({
        method: 'eth_getBlockReceipts',
        params: [blockHash],
      })) as RpcTransactionReceipt[] | null;
      if (!receipts) throw new BlockNotFoundError({ blockHash });
      return receipts;
    },
    valueAt(blockHash, key, read) {
      if (values?.blockHash !== blockHash) values = { blockHash, byKey: new Map() };
      const { byKey } = values;
      let value = byKey.get(key);
      if (!value) {
        value = read();
        value.catch(() => byKey.delete(key));
        byKey.set(key, value);
      }
      return value;
    },
  };
}

import type { Hex } from 'viem';
import type { LocalWorld } from './local-world';

export interface MinedTransaction {
  hash: Hex;
  from: string;
  to: string | null;
  value: bigint;
  nonce: number;
  /** The call data (`0x` for a plain value transfer). */
  input: Hex;
}

/** Every transaction mined after `afterBlock`: the chain's own word on what was sent. */
export async function minedTransactions(
  world: LocalWorld,
  afterBlock: bigint,
): Promise<MinedTransaction[]> {
  const head = await world.testClient.getBlockNumber({ cacheTime: 0 });
  const mined: MinedTransaction[] = [];
  for (let blockNumber = afterBlock + 1n; blockNumber <= head; blockNumber++) {
    const block = await world.testClient.getBlock({ blockNumber, includeTransactions: true });
    for (const tx of block.transactions) {
      mined.push({
        hash: tx.hash,
        from: tx.from,
        to: tx.to,
        value: tx.value,
        nonce: tx.nonce,
        input: tx.input,
      });
    }
  }
  return mined;
}

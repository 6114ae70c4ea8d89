import type { Hex } from '../../domain/transfer';
import type { EvmContext, RpcErrorType } from './context';

export type BlocksSinceParameters = { after?: bigint };
export type BlocksSinceReturnType = {
  /** The head's number and base fee. */
  head: bigint;
  baseFeePerGas: bigint;
  /** The hashes our wallets sent in the blocks after `after` up to the head, oldest first. */
  ours: Hex[];
};
export type BlocksSinceErrorType = RpcErrorType;

/**
 * What the chain did since block `after` (without it: the head block alone), from the watched
 * head at a look's age — the same read every look shares, so following adds none while looks run.
 */
export async function blocksSince(
  { rpc, watcher, lookMaxAgeMs }: EvmContext,
  { after }: BlocksSinceParameters,
): Promise<BlocksSinceReturnType> {
  const { block: head } = await rpc(watcher.currentHead(lookMaxAgeMs));
  const blocks = watcher.blocksAfter(after ?? head.number - 1n);
  return {
    head: head.number,
    baseFeePerGas: head.baseFeePerGas,
    ours: blocks.flatMap((block) => block.oursHashes),
  };
}

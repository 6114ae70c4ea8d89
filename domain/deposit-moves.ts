import { baseUnitsOf, type RegisteredToken } from './asset';
import type { Deposit, DepositStatus, DustMarks } from './deposit';

/**
 * What a deposit scan decides, as pure functions the activity carries out
 * (activities/scan-deposits.ts): which blocks to read, what a transfer is, and at finality
 * whether a deposit is credited, waits or is dropped.
 */

/** A transfer into an address as the chain shows it (chain/inbound-transfer.ts). */
export interface SeenTransfer {
  txHash: string;
  /** The Transfer log's position among its receipt's logs; -1 for the native coin. */
  position: number;
  to: string;
  /** `native`, or the token contract that logged it. */
  asset: string;
  amount: bigint;
}

/**
 * The blocks one scan reads: on from the last one read (`next`; unset: the head), at most
 * `maxBlocks`; none when the scan is ahead of the head.
 */
export function blocksToRead(
  next: bigint | undefined,
  head: bigint,
  maxBlocks: number,
): { from: bigint; to: bigint } | undefined {
  const from = next ?? head;
  if (from > head) return undefined;
  const last = from + BigInt(maxBlocks) - 1n;
  return { from, to: head < last ? head : last };
}

/**
 * What a transfer into a deposit address is: `detected` (to be credited once final), `dust`
 * (below the operator's mark for its asset) or `unregistered` (a token the relayer does not
 * know); the last two are recorded, never credited.
 */
export function classifyTransfer(
  transfer: Pick<SeenTransfer, 'asset' | 'amount'>,
  tokens: ReadonlyMap<string, Pick<RegisteredToken, 'decimals'>>,
  dust: DustMarks | undefined,
): DepositStatus {
  if (transfer.asset === 'native') {
    return transfer.amount < (dust?.nativeWei ?? 0n) ? 'dust' : 'detected';
  }
  const token = tokens.get(transfer.asset.toLowerCase());
  if (!token) return 'unregistered';
  const mark = dust ? (baseUnitsOf(dust.tokens, token.decimals) ?? 0n) : 0n;
  return transfer.amount < mark ? 'dust' : 'detected';
}

/** Where a deposit's transaction is now, read again from its receipt (undefined: gone). */
export interface ReceiptNow {
  blockNumber: bigint;
  blockHash: string;
  transfers: readonly SeenTransfer[];
}

export type FinalityMove =
  /** Its transaction, or this transfer in it, is gone: a reorg took it out. */
  | { move: 'drop' }
  /** A reorg moved it to a block not final yet: its row follows, the credit waits. */
  | { move: 'wait'; movedTo: { blockNumber: bigint; blockHash: string } }
  /** Final as recorded, or moved to a block that is final too: credited once. */
  | { move: 'credit'; movedTo?: { blockNumber: bigint; blockHash: string } };

/**
 * A deposit whose block is final, read again from its receipt: the same transfer (position,
 * address, asset, amount) in the same block is credited; moved by a reorg, it follows its new
 * block and is credited only once that block is final too; gone, it is dropped.
 */
export function decideAtFinality(
  deposit: Pick<Deposit, 'logIndex' | 'address' | 'asset' | 'amount' | 'blockHash'>,
  now: ReceiptNow | undefined,
  finalBlock: bigint,
): FinalityMove {
  const same = now?.transfers.find(
    (t) =>
      t.position === deposit.logIndex &&
      t.to.toLowerCase() === deposit.address.toLowerCase() &&
      t.asset.toLowerCase() === deposit.asset.toLowerCase() &&
      t.amount === deposit.amount,
  );
  if (!now || !same) return { move: 'drop' };
  if (now.blockHash === deposit.blockHash) return { move: 'credit' };
  const movedTo = { blockNumber: now.blockNumber, blockHash: now.blockHash };
  return now.blockNumber > finalBlock ? { move: 'wait', movedTo } : { move: 'credit', movedTo };
}

import { createHash } from 'node:crypto';
import { advanceScan, nextScanBlock } from '../store/deposit-scans';
import type { Chain } from '../chain/chain';
import type { InboundTransfer } from '../chain/inbound-transfer';
import { ledgerAssetOf, type RegisteredToken } from '../domain/asset';
import { blocksToRead, classifyTransfer, decideAtFinality } from '../domain/deposit-moves';
import type { Deposit, DepositStatus } from '../domain/deposit';
import type { Hex } from '../domain/transfer';
import { listTokens } from '../store/assets';
import {
  anyAwaitingFinality,
  creditDeposit,
  depositsAwaitingFinality,
  markDepositDropped,
  recordSeenDeposit,
} from '../store/deposits';
import { depositAddressesOnChain, type DepositAddress } from '../store/deposit-addresses';
import { recordDepositEvent } from '../store/webhook-outbox';
import type { ActivityDependencies } from './dependencies';
import { whileHeartbeating } from './liveness';

export interface ScanDepositsParameters {
  chainId: number;
  /** The most blocks one scan reads: a catch-up after downtime goes in runs of this many. */
  maxBlocks: number;
  /** The most deposits one scan looks at for finality. */
  creditLimit: number;
}

export interface ScanDepositsResult {
  /** The blocks read, when any. */
  read?: { from: string; to: string };
  detected: number;
  credited: number;
  dropped: number;
}

/** The same id for the same transfer, whoever sees it. */
export const depositIdOf = (chainId: number, txHash: string, position: number): string =>
  `dep_${createHash('sha256').update(`${chainId}:${txHash.toLowerCase()}:${position}`).digest('hex').slice(0, 26)}`;

/**
 * One chain's deposit watch, run by its schedule: reads on from the last block read (at most
 * `maxBlocks`, behind every payment in the RPC budget), records each transfer into a deposit
 * address once, then credits those whose block is now final — each read again from its receipt:
 * moved by a reorg, it waits for its new block; gone, it is `dropped` (and detected again if it
 * comes back); the same, it is credited once (a compare-and-set on its row with the posting).
 */
export const scanDeposits =
  (deps: Pick<ActivityDependencies, 'db' | 'chains' | 'clock' | 'dustMarks' | 'failpoints'>) =>
  (input: ScanDepositsParameters): Promise<ScanDepositsResult> =>
    whileHeartbeating(async () => {
      const chain = deps.chains.get(input.chainId);
      const tokens = new Map(
        (await listTokens(deps.db.kysely, input.chainId)).map((t) => [t.address.toLowerCase(), t]),
      );
      const result: ScanDepositsResult = { detected: 0, credited: 0, dropped: 0 };
      const read = await detect(deps, chain, tokens, input);
      if (read) {
        result.read = { from: read.from.toString(), to: read.to.toString() };
        result.detected = read.detected;
      }
      if (!(await anyAwaitingFinality(deps.db.kysely, chain.chainId))) return result;
      const finalBlock = await chain.finalizedBlock();
      const due = await depositsAwaitingFinality(
        deps.db.kysely,
        chain.chainId,
        finalBlock,
        input.creditLimit,
      );
      for (const deposit of due) {
        const outcome = await credit(deps, chain, deposit, finalBlock);
        if (outcome === 'credited') {
          result.credited++;
          deps.failpoints?.reach('after-deposit-credited');
        }
        if (outcome === 'dropped') result.dropped++;
      }
      return result;
    });

async function detect(
  deps: Pick<ActivityDependencies, 'db' | 'clock' | 'dustMarks' | 'failpoints'>,
  chain: Chain,
  tokens: Map<string, RegisteredToken>,
  { maxBlocks }: ScanDepositsParameters,
): Promise<{ from: bigint; to: bigint; detected: number } | undefined> {
  const { db, clock } = deps;
  const addresses = await depositAddressesOnChain(db.kysely, chain.chainId);
  // No address on the chain yet: nothing can arrive, and the chain is not asked anything.
  if (addresses.size === 0) return undefined;
  // Read now, not the watched head: a scan may come right after a block.
  const head = await chain.blockNumber(0);
  // Unset only if addresses were stored without startScanAt: from the head on.
  const next = (await nextScanBlock(db.kysely, chain.chainId)) ?? undefined;
  const range = blocksToRead(next, head, maxBlocks);
  if (!range) return undefined;
  const { from, to } = range;
  const seen = await chain.inboundTransfers(
    [...addresses.values()].map((a) => a.address as Hex),
    from,
    to,
  );
  let detected = 0;
  await db.transaction(async (trx) => {
    const now = clock.now();
    for (const transfer of seen) {
      const address = addresses.get(transfer.to.toLowerCase());
      if (!address) continue;
      const status = classifyTransfer(transfer, tokens, deps.dustMarks);
      const { deposit, isNew } = await recordSeenDeposit(
        trx,
        seenDeposit(chain.chainId, transfer, address, status),
        now,
      );
      if (isNew && status === 'detected') {
        detected++;
        await recordDepositEvent(trx, deposit, 'deposit.detected', now);
      }
    }
    await advanceScan(trx, chain.chainId, to + 1n, now);
  });
  if (detected > 0) deps.failpoints?.reach('after-deposit-detected');
  return { from, to, detected };
}

const seenDeposit = (
  chainId: number,
  transfer: InboundTransfer,
  address: DepositAddress,
  status: DepositStatus,
) => ({
  id: depositIdOf(chainId, transfer.txHash, transfer.position),
  chainId,
  txHash: transfer.txHash,
  logIndex: transfer.position,
  address: address.address,
  tenantId: address.tenantId,
  asset: transfer.asset,
  amount: transfer.amount,
  blockNumber: transfer.blockNumber,
  blockHash: transfer.blockHash,
  status,
  reference: address.reference ?? null,
  metadata: address.metadata ?? null,
});

async function credit(
  deps: Pick<ActivityDependencies, 'db' | 'clock'>,
  chain: Chain,
  deposit: Deposit,
  finalBlock: bigint,
): Promise<'credited' | 'dropped' | 'waiting'> {
  const { db, clock } = deps;
  const decided = decideAtFinality(
    deposit,
    await chain.inboundOf(deposit.txHash as Hex),
    finalBlock,
  );
  if (decided.move === 'drop') {
    return (await markDepositDropped(db.kysely, deposit, clock.now())) ? 'dropped' : 'waiting';
  }
  if (decided.movedTo) {
    // Moved by a reorg: its row follows it, and finality waits for the new block.
    deposit = { ...deposit, ...decided.movedTo };
    await db.transaction((trx) => recordSeenDeposit(trx, deposit, clock.now()));
  }
  if (decided.move === 'wait') return 'waiting';
  const book = ledgerAssetOf(
    chain.chainId,
    deposit.asset === 'native' ? 'native' : (deposit.asset as Hex),
  );
  const at = clock.now();
  const credited = await creditDeposit(db, deposit, book, at, (trx) =>
    recordDepositEvent(
      trx,
      { ...deposit, status: 'credited', creditedAt: at },
      'deposit.credited',
      at,
    ),
  );
  return credited ? 'credited' : 'waiting';
}

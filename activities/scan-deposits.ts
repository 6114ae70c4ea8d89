import { advanceScan, nextScanBlock } from '../store/deposit-scans';
import { createHash } from 'node:crypto';
import type { Chain } from '../chain/chain';
import type { InboundTransfer } from '../chain/inbound-transfer';
import { baseUnitsOf, ledgerAssetOf, type RegisteredToken } from '../domain/asset';
import type { Deposit, DepositStatus, DustMarks } from '../domain/deposit';
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
  const from = (await nextScanBlock(db.kysely, chain.chainId)) ?? head;
  if (from > head) return undefined;
  const to = head < from + BigInt(maxBlocks) - 1n ? head : from + BigInt(maxBlocks) - 1n;
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
      const status = statusOf(transfer, tokens, deps.dustMarks);
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
});

function statusOf(
  transfer: InboundTransfer,
  tokens: Map<string, RegisteredToken>,
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

async function credit(
  deps: Pick<ActivityDependencies, 'db' | 'clock'>,
  chain: Chain,
  deposit: Deposit,
  finalBlock: bigint,
): Promise<'credited' | 'dropped' | 'waiting'> {
  const { db, clock } = deps;
  const now = await chain.inboundOf(deposit.txHash as Hex);
  if (!now)
    return (await markDepositDropped(db.kysely, deposit, clock.now())) ? 'dropped' : 'waiting';
  const same = now.transfers.find(
    (t) =>
      t.position === deposit.logIndex &&
      t.to.toLowerCase() === deposit.address.toLowerCase() &&
      t.asset.toLowerCase() === deposit.asset.toLowerCase() &&
      t.amount === deposit.amount,
  );
  if (!same)
    return (await markDepositDropped(db.kysely, deposit, clock.now())) ? 'dropped' : 'waiting';
  if (now.blockHash !== deposit.blockHash) {
    // Moved by a reorg: its row follows it, and finality waits for the new block.
    await db.transaction((trx) =>
      recordSeenDeposit(
        trx,
        { ...deposit, blockNumber: now.blockNumber, blockHash: now.blockHash },
        clock.now(),
      ),
    );
    if (now.blockNumber > finalBlock) return 'waiting';
    deposit = { ...deposit, blockNumber: now.blockNumber, blockHash: now.blockHash };
  }
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

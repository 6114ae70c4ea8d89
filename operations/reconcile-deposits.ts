import type { Chain } from '../chain/chain';
import { ledgerAssetOf } from '../domain/asset';
import {
  differencesIn,
  emptyReconciliation,
  reconciledLine,
  type DepositReconciliation,
  type RecordedDeposits,
} from '../domain/deposit-reconciliation';
import { sweepMovedNothingStatuses } from '../domain/deposit';
import { IntentStatus } from '../domain/intent';
import type { Hex } from '../domain/transfer';
import type { Database } from '../store/database';
import { nextScanBlock } from '../store/deposit-scans';
import { saveReconciliation } from '../store/deposit-reconciliations';
import {
  depositSweepsOnChain,
  recordSweepOutcome,
  type DepositSweep,
} from '../store/deposit-sweeps';
import { depositsMinedBy, postedOutOfDeposits } from '../store/deposits';
import { depositAddressesOnChain } from '../store/deposit-addresses';

/** A sweep that moved nothing: it needs no receipt and changes no address. */
const movedNothing: ReadonlySet<string> = new Set(sweepMovedNothingStatuses);

/**
 * Compares, per deposit address and asset, what the chain shows arrived — what the address held
 * at the last block the deposit scan read, plus what confirmed sweeps mined by then moved out —
 * with what the books recorded of it: credited, recorded uncredited (dust, unregistered tokens)
 * and pending finality; and, per book, what deposits credited with what `@system/deposits` gave
 * out. Value that reached an address by a contract's internal call (no transaction to it, so
 * never detected) shows here as a difference. An address with a sweep under way is not compared.
 * Undefined while the chain has never been scanned.
 */
export async function reconcileDeposits(
  database: Database,
  chain: Chain,
): Promise<DepositReconciliation | undefined> {
  const db = database.kysely;
  const next = await nextScanBlock(db, chain.chainId);
  if (next === undefined || next === 0n || !chain.depositFactory) return undefined;
  const blockNumber = next - 1n;
  const [addresses, deposits, sweeps] = await Promise.all([
    depositAddressesOnChain(db, chain.chainId),
    depositsMinedBy(db, chain.chainId, blockNumber),
    sweepOutcomes(database, chain, chain.depositFactory),
  ]);
  const recorded = new Map<string, Map<string, RecordedDeposits>>();
  for (const deposit of deposits) {
    const assets = recorded.get(deposit.address) ?? new Map<string, RecordedDeposits>();
    const sums = assets.get(deposit.asset) ?? { credited: 0n, uncredited: 0n, pending: 0n };
    const part =
      deposit.status === 'credited'
        ? 'credited'
        : deposit.status === 'detected'
          ? 'pending'
          : 'uncredited';
    sums[part] += deposit.amount;
    assets.set(deposit.asset, sums);
    recorded.set(deposit.address, assets);
  }
  const sweeping = new Set(sweeps.filter((s) => s.underWay).map((s) => s.address));
  const lines = [];
  for (const { address } of addresses.values()) {
    if (sweeping.has(address)) continue;
    const books = recorded.get(address) ?? new Map<string, RecordedDeposits>();
    const swept = new Map<string, bigint>();
    for (const sweep of sweeps) {
      if (sweep.address !== address || !sweep.swept || sweep.blockNumber! > blockNumber) continue;
      for (const [asset, amount] of Object.entries(sweep.swept)) {
        swept.set(asset, (swept.get(asset) ?? 0n) + amount);
      }
    }
    const assets = [...new Set(['native', ...books.keys(), ...swept.keys()])];
    const held = await chain.balancesAt(address as Hex, assets, blockNumber);
    for (const asset of assets) {
      lines.push(
        reconciledLine(
          address,
          asset,
          { held: held.get(asset) ?? 0n, swept: swept.get(asset) ?? 0n },
          books.get(asset) ?? { credited: 0n, uncredited: 0n, pending: 0n },
        ),
      );
    }
  }
  const books = await bookTotals(database, chain.chainId, deposits);
  return {
    chainId: chain.chainId,
    blockNumber,
    lines,
    sweeping: [...sweeping],
    books,
    sweepGas: sweeps.reduce((sum, sweep) => sum + (sweep.gasPaid ?? 0n), 0n),
    differences: differencesIn(lines, books),
  };
}

/**
 * Reconciles the chain's deposits now and keeps the result, which /readyz and the metric read in
 * every process; a chain never scanned has nothing to compare yet (nothing kept, `blockNumber` 0).
 */
export async function reconcileAndKeep(
  database: Database,
  chain: Chain,
  now: Date,
): Promise<DepositReconciliation> {
  const reconciliation = await reconcileDeposits(database, chain);
  if (!reconciliation) return emptyReconciliation(chain.chainId);
  await saveReconciliation(database.kysely, reconciliation, now);
  return reconciliation;
}

/**
 * Every sweep of the chain, a confirmed one's outcome read from its receipt once and kept; a
 * sweep neither ended nor read is under way.
 */
async function sweepOutcomes(
  database: Database,
  chain: Chain,
  factory: Hex,
): Promise<(DepositSweep & { underWay: boolean })[]> {
  const sweeps = await depositSweepsOnChain(database.kysely, chain.chainId);
  return Promise.all(
    sweeps.map(async (sweep) => {
      if (movedNothing.has(sweep.status) || sweep.swept) return { ...sweep, underWay: false };
      if (sweep.status !== IntentStatus.confirmed || !sweep.txHash) {
        return { ...sweep, underWay: true };
      }
      const outcome = await chain.sweepOutcome(sweep.txHash as Hex, factory);
      if (!outcome) return { ...sweep, underWay: true };
      const moved = outcome.moved.get(sweep.address) ?? new Map<string, bigint>();
      const swept = Object.fromEntries(moved);
      await recordSweepOutcome(database.kysely, sweep.intentId, { ...outcome, swept });
      return { ...sweep, ...outcome, swept, underWay: false };
    }),
  );
}

/** Per book of the chain's deposits: credited by deposits beside what the system account gave. */
async function bookTotals(
  database: Database,
  chainId: number,
  deposits: readonly { asset: string; amount: bigint; status: string }[],
): Promise<DepositReconciliation['books']> {
  const credited = new Map<string, bigint>();
  for (const deposit of deposits) {
    const book = ledgerAssetOf(
      chainId,
      deposit.asset === 'native' ? 'native' : (deposit.asset as Hex),
    );
    const sum = credited.get(book) ?? 0n;
    credited.set(book, sum + (deposit.status === 'credited' ? deposit.amount : 0n));
  }
  const postedOut = await postedOutOfDeposits(database.kysely, [...credited.keys()]);
  return [...credited].map(([asset, sum]) => ({
    asset,
    credited: sum,
    postedOut: postedOut.get(asset) ?? 0n,
  }));
}

// What the chain shows arrived at each deposit address, set beside what the books say of it. Pure.

/** What the books say reached one address in one asset, by the deposits' state. */
export interface RecordedDeposits {
  credited: bigint;
  /** Recorded, never credited: dust and unregistered tokens. */
  uncredited: bigint;
  /** Detected, not final yet. */
  pending: bigint;
}

/** One address and asset: the chain's side, the books' side, and the difference. */
export interface ReconciledLine extends RecordedDeposits {
  address: string;
  /** `native`, or the token's address. */
  asset: string;
  /** What the address held at the reconciled block. */
  held: bigint;
  /** What confirmed sweeps mined by that block moved out of it. */
  swept: bigint;
  /** held + swept − (credited + uncredited + pending): 0 when they agree. */
  difference: bigint;
}

/** A chain's reconciliation. */
export interface DepositReconciliation {
  chainId: number;
  /** The block the chain's side was read at: the last one the deposit scan has read. */
  blockNumber: bigint;
  lines: ReconciledLine[];
  /** Addresses with a sweep under way: not compared this time (the sweep moves their funds). */
  sweeping: string[];
  /** Per book: what was credited by deposits, and what `@system/deposits` gave out. */
  books: { asset: string; credited: bigint; postedOut: bigint }[];
  /** Gas the chain's confirmed sweeps cost the house (native wei). */
  sweepGas: bigint;
  /** Lines and books that do not agree. */
  differences: number;
}

/** A chain's reconciliation before its first scan: nothing to compare. */
export const emptyReconciliation = (chainId: number): DepositReconciliation => ({
  chainId,
  blockNumber: 0n,
  lines: [],
  sweeping: [],
  books: [],
  sweepGas: 0n,
  differences: 0,
});

/** One address and asset, compared. */
export const reconciledLine = (
  address: string,
  asset: string,
  chain: { held: bigint; swept: bigint },
  books: RecordedDeposits,
): ReconciledLine => ({
  address,
  asset,
  ...chain,
  ...books,
  difference: chain.held + chain.swept - (books.credited + books.uncredited + books.pending),
});

/** How many of a reconciliation's lines and books disagree. */
export const differencesIn = (
  lines: readonly ReconciledLine[],
  books: readonly { credited: bigint; postedOut: bigint }[],
): number =>
  lines.filter((line) => line.difference !== 0n).length +
  books.filter((book) => book.credited !== book.postedOut).length;

/** A reconciliation as the API shows it and the database keeps it: amounts as decimal text. */
export const reconciliationView = (reconciliation: DepositReconciliation) => ({
  chainId: reconciliation.chainId,
  blockNumber: reconciliation.blockNumber.toString(),
  differences: reconciliation.differences,
  sweepGas: reconciliation.sweepGas.toString(),
  sweeping: reconciliation.sweeping,
  lines: reconciliation.lines.map((line) => ({
    address: line.address,
    asset: line.asset,
    held: line.held.toString(),
    swept: line.swept.toString(),
    credited: line.credited.toString(),
    uncredited: line.uncredited.toString(),
    pending: line.pending.toString(),
    difference: line.difference.toString(),
  })),
  books: reconciliation.books.map((book) => ({
    asset: book.asset,
    credited: book.credited.toString(),
    postedOut: book.postedOut.toString(),
  })),
});

export type ReconciliationView = ReturnType<typeof reconciliationView>;

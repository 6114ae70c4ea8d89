import type { ScheduledItem } from '../activities/batch/load-batch-items';

/** What a batch's earlier runs started, carried over continue-as-new. */
export interface StartedSoFar {
  /** Every item below this index was started (or rejected, or skipped). */
  startedBelow: number;
  /** Items at or above startedBelow that were started out of order (another wallet was busy). */
  startedAhead: number[];
}

/** How a started item of a wallet must sign: at once, or after the one before it. */
export interface StartedItem {
  index: number;
  /** An item of its wallet before it is not signed yet: it waits for its turn to sign. */
  waitsForTurn: boolean;
}

/**
 * Which items of a batch may start, and when each may sign: pure, so the rules are unit-tested
 * without a workflow (test/unit/batch-schedule.test.ts); the batch workflow feeds it what its
 * items report. Items of one sending wallet sign in input order (their nonces follow the input).
 *
 * - Without `pipelined` (batches started before it): a wallet's next item starts only once the
 *   one before it is signed.
 * - `pipelined`: it starts once the one before it has its permit and its hold (it is about to
 *   sign), takes its own, and waits for its turn only to sign. At most one item per wallet waits
 *   so: a waiting item holds a permit, and the item before it already has its own, so no wallet
 *   can hold permits its predecessor needs.
 *
 * Items that name no wallet wait for nothing.
 */
export class BatchSchedule {
  private pending: ScheduledItem[] = [];
  private startedBelow: number;
  private readonly startedAhead: Set<number>;
  /** Per wallet, its started items not signed (nor ended) yet, in input order. */
  private readonly unsigned = new Map<string, number[]>();
  /** Started items that have their permit and hold. */
  private readonly held = new Set<number>();
  private readonly walletOf = new Map<number, string>();

  constructor(
    private readonly pipelined: boolean,
    carried: StartedSoFar = { startedBelow: 0, startedAhead: [] },
  ) {
    this.startedBelow = carried.startedBelow;
    this.startedAhead = new Set(carried.startedAhead);
  }

  /** Items read from the store; those an earlier run started are left out. */
  add(items: readonly ScheduledItem[]): void {
    this.pending.push(...items.filter((item) => !this.startedAhead.has(item.index)));
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** The batch stops: nothing pending starts. */
  skipPending(): void {
    this.pending = [];
  }

  /** Items started so far, every run counted. */
  get startedCount(): number {
    return this.startedBelow + this.startedAhead.size;
  }

  /** The first pending item that may start now, in input order; undefined if none may. */
  nextStartable(): ScheduledItem | undefined {
    const seen = new Set<string>();
    for (const item of this.pending) {
      if (item.wallet === undefined) return item;
      if (!seen.has(item.wallet) && this.mayStartOn(item.wallet)) return item;
      seen.add(item.wallet);
    }
    return undefined;
  }

  private mayStartOn(wallet: string): boolean {
    const waiting = this.unsigned.get(wallet) ?? [];
    if (waiting.length === 0) return true;
    return this.pipelined && waiting.length === 1 && this.held.has(waiting[0]!);
  }

  /** `item` was taken to start (admitted, or rejected at admission). */
  started(item: ScheduledItem): StartedItem {
    this.pending = this.pending.filter((other) => other.index !== item.index);
    this.startedAhead.add(item.index);
    while (this.startedAhead.has(this.startedBelow)) this.startedAhead.delete(this.startedBelow++);
    if (item.wallet === undefined) return { index: item.index, waitsForTurn: false };
    const waiting = this.unsigned.get(item.wallet) ?? [];
    waiting.push(item.index);
    this.unsigned.set(item.wallet, waiting);
    this.walletOf.set(item.index, item.wallet);
    return { index: item.index, waitsForTurn: waiting.length > 1 };
  }

  /** The item has its permit and hold: (pipelined) its wallet's next item may start. */
  holds(index: number): void {
    if (this.walletOf.has(index)) this.held.add(index);
  }

  /**
   * The item is signed, or ended without being signed: it no longer holds its wallet's turn.
   * Returns the item whose turn to sign it is now, if one waits for it.
   */
  signedOrEnded(index: number): number | undefined {
    const wallet = this.walletOf.get(index);
    if (wallet === undefined) return undefined;
    this.walletOf.delete(index);
    this.held.delete(index);
    const before = this.unsigned.get(wallet) ?? [];
    const waiting = before.filter((other) => other !== index);
    if (waiting.length === 0) this.unsigned.delete(wallet);
    else this.unsigned.set(wallet, waiting);
    // Only the first of a wallet's items signs; a waiting one that ends passes no turn on.
    return before[0] === index ? waiting[0] : undefined;
  }

  /** What the next run needs to know. */
  carried(): StartedSoFar {
    return { startedBelow: this.startedBelow, startedAhead: [...this.startedAhead] };
  }
}

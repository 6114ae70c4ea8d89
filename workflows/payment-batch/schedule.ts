import type { ScheduledItem } from '../../activities/batch/load-batch-items';

/** What a batch's earlier runs started, carried over continue-as-new. */
export interface StartedSoFar {
  /** Every item below this index was started (or rejected, or skipped). */
  startedBelow: number;
  /** Items at or above startedBelow that were started out of order (another wallet was busy). */
  startedAhead: number[];
}

/**
 * How a batch keeps a wallet's nonces in input order. `turns`: items start in input order as slots
 * free up, and each signs in its wallet's turn, which the items hand on among themselves
 * (workflows/payment-intent/wallet-turns.ts). `one-unsigned` (batches started before turns): a
 * wallet's next item starts only once the one before it is signed or ended, as the items report to
 * the batch.
 */
export type WalletOrder = 'turns' | 'one-unsigned';

/**
 * Which items of a batch may start: pure, so the rules are unit-tested without a workflow
 * (test/unit/batch-schedule.test.ts); the batch workflow feeds it what its items report. Items
 * start in input order; under `one-unsigned`, an item waits while its wallet has a started item
 * not signed yet, and the items after it may go ahead. Items that name no wallet wait for nothing.
 */
export class BatchSchedule {
  private pending: ScheduledItem[] = [];
  private startedBelow: number;
  private readonly startedAhead: Set<number>;
  /** Per wallet, its started item not signed (nor ended) yet: at most one (`one-unsigned`). */
  private readonly unsignedOf = new Map<string, number>();

  constructor(
    carried: StartedSoFar = { startedBelow: 0, startedAhead: [] },
    private readonly walletOrder: WalletOrder = 'turns',
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
      if (!seen.has(item.wallet) && !this.unsignedOf.has(item.wallet)) return item;
      seen.add(item.wallet);
    }
    return undefined;
  }

  /** `item` was taken to start (admitted, or rejected at admission). */
  started(item: ScheduledItem): void {
    this.pending = this.pending.filter((other) => other.index !== item.index);
    this.startedAhead.add(item.index);
    while (this.startedAhead.has(this.startedBelow)) this.startedAhead.delete(this.startedBelow++);
    if (item.wallet !== undefined && this.walletOrder === 'one-unsigned') {
      this.unsignedOf.set(item.wallet, item.index);
    }
  }

  /**
   * The item is signed, or ended: its wallet may start its next item. A signed item ending later
   * changes nothing (its wallet may already be busy with the next one).
   */
  signedOrEnded(index: number): void {
    for (const [wallet, unsigned] of this.unsignedOf) {
      if (unsigned === index) this.unsignedOf.delete(wallet);
    }
  }

  /** What the next run needs to know. */
  carried(): StartedSoFar {
    return { startedBelow: this.startedBelow, startedAhead: [...this.startedAhead] };
  }
}

import type { ScheduledItem } from '../../activities/batch/load-batch-items';
import { BatchSchedule } from '../../workflows/batch-schedule';

const items = (...wallets: (string | undefined)[]): ScheduledItem[] =>
  wallets.map((wallet, index) => (wallet === undefined ? { index } : { index, wallet }));

/** Starts whatever may start now, in order; returns what started. */
function startAll(schedule: BatchSchedule) {
  const started = [];
  for (let item = schedule.nextStartable(); item; item = schedule.nextStartable()) {
    started.push(schedule.started(item));
  }
  return started;
}

describe('the batch schedule', () => {
  it('starts one item per wallet until it is signed (batches from before pipelining)', () => {
    const schedule = new BatchSchedule(false);
    schedule.add(items('a', 'a', 'b', 'a'));
    expect(startAll(schedule)).toEqual([
      { index: 0, waitsForTurn: false },
      { index: 2, waitsForTurn: false },
    ]);
    schedule.holds(0);
    expect(schedule.nextStartable()).toBeUndefined();
    expect(schedule.signedOrEnded(0)).toBeUndefined();
    expect(startAll(schedule)).toEqual([{ index: 1, waitsForTurn: false }]);
  });

  it('pipelined: the next item of a wallet starts once the one before holds, and waits for its turn to sign', () => {
    const schedule = new BatchSchedule(true);
    schedule.add(items('a', 'a', 'a'));
    expect(startAll(schedule)).toEqual([{ index: 0, waitsForTurn: false }]);
    schedule.holds(0);
    expect(startAll(schedule)).toEqual([{ index: 1, waitsForTurn: true }]);
    // One waiting item per wallet at most, held or not.
    schedule.holds(1);
    expect(schedule.nextStartable()).toBeUndefined();
    // Item 0 signs: item 1's turn; item 2 may start once 1 holds (it does already).
    expect(schedule.signedOrEnded(0)).toBe(1);
    expect(startAll(schedule)).toEqual([{ index: 2, waitsForTurn: true }]);
    expect(schedule.signedOrEnded(1)).toBe(2);
    expect(schedule.signedOrEnded(2)).toBeUndefined();
  });

  it('an item that ends before signing passes its turn on; a waiting one that ends passes nothing', () => {
    const schedule = new BatchSchedule(true);
    schedule.add(items('a', 'a', 'a'));
    startAll(schedule);
    schedule.holds(0);
    startAll(schedule);
    // The waiting item 1 is cancelled: item 0 still signs first, nobody's turn changes.
    expect(schedule.signedOrEnded(1)).toBeUndefined();
    expect(startAll(schedule)).toEqual([{ index: 2, waitsForTurn: true }]);
    // Item 0 fails before signing: item 2 signs next.
    expect(schedule.signedOrEnded(0)).toBe(2);
  });

  it('a signed item ending later changes nothing', () => {
    const schedule = new BatchSchedule(true);
    schedule.add(items('a', 'a'));
    startAll(schedule);
    expect(schedule.signedOrEnded(0)).toBeUndefined();
    startAll(schedule);
    expect(schedule.signedOrEnded(0)).toBeUndefined();
    expect(schedule.nextStartable()).toBeUndefined();
  });

  it('items without a wallet wait for nothing, in input order among the others', () => {
    const schedule = new BatchSchedule(true);
    schedule.add(items('a', undefined, 'a', undefined));
    expect(startAll(schedule).map((item) => item.index)).toEqual([0, 1, 3]);
  });

  it('carries what was started over continue-as-new, out-of-order starts included', () => {
    const schedule = new BatchSchedule(true);
    schedule.add(items('a', 'a', 'b'));
    startAll(schedule);
    expect(schedule.carried()).toEqual({ startedBelow: 1, startedAhead: [2] });
    expect(schedule.startedCount).toBe(2);
    const next = new BatchSchedule(true, schedule.carried());
    next.add(items('a', 'a', 'b').slice(1));
    expect(next.pendingCount).toBe(1);
    expect(next.startedCount).toBe(2);
  });
});

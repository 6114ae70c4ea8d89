import type { ScheduledItem } from '../../activities/batch/load-batch-items';
import { BatchSchedule } from '../../workflows/payment-batch/schedule';

const items = (...wallets: (string | undefined)[]): ScheduledItem[] =>
  wallets.map((wallet, index) => (wallet === undefined ? { index } : { index, wallet }));

/** Starts whatever may start now, in order; returns the indexes started. */
function startAll(schedule: BatchSchedule): number[] {
  const started = [];
  for (let item = schedule.nextStartable(); item; item = schedule.nextStartable()) {
    schedule.started(item);
    started.push(item.index);
  }
  return started;
}

describe('the batch schedule, wallets in turns', () => {
  it("starts every item in input order, whatever its wallet: the items keep a wallet's order at signing", () => {
    const schedule = new BatchSchedule();
    schedule.add(items('a', 'a', 'b', 'a', undefined));
    expect(startAll(schedule)).toEqual([0, 1, 2, 3, 4]);
    expect(schedule.carried()).toEqual({ startedBelow: 5, startedAhead: [] });
  });

  it('nothing starts once told to skip what is pending', () => {
    const schedule = new BatchSchedule();
    schedule.add(items('a', 'a'));
    schedule.skipPending();
    expect(schedule.nextStartable()).toBeUndefined();
  });
});

describe('the batch schedule of runs before wallet turns: one unsigned item per wallet', () => {
  it("starts one item per wallet, in input order, the wallet's next once it is signed", () => {
    const schedule = new BatchSchedule(undefined, 'one-unsigned');
    schedule.add(items('a', 'a', 'b', 'a'));
    expect(startAll(schedule)).toEqual([0, 2]);
    schedule.signedOrEnded(0);
    expect(startAll(schedule)).toEqual([1]);
    schedule.signedOrEnded(1);
    expect(startAll(schedule)).toEqual([3]);
    expect(schedule.pendingCount).toBe(0);
  });

  it('an item that ends unsigned (failed, rejected) frees its wallet too', () => {
    const schedule = new BatchSchedule(undefined, 'one-unsigned');
    schedule.add(items('a', 'a'));
    startAll(schedule);
    schedule.signedOrEnded(0);
    expect(startAll(schedule)).toEqual([1]);
  });

  it('a signed item ending later does not free its wallet from the next one', () => {
    const schedule = new BatchSchedule(undefined, 'one-unsigned');
    schedule.add(items('a', 'a', 'a'));
    startAll(schedule);
    schedule.signedOrEnded(0);
    expect(startAll(schedule)).toEqual([1]);
    schedule.signedOrEnded(0);
    expect(schedule.nextStartable()).toBeUndefined();
  });

  it('items without a wallet wait for nothing, in input order among the others', () => {
    const schedule = new BatchSchedule(undefined, 'one-unsigned');
    schedule.add(items('a', undefined, 'a', undefined));
    expect(startAll(schedule)).toEqual([0, 1, 3]);
  });

  it('stops starting anything once told to skip what is pending', () => {
    const schedule = new BatchSchedule(undefined, 'one-unsigned');
    schedule.add(items('a', 'b'));
    schedule.skipPending();
    expect(schedule.nextStartable()).toBeUndefined();
  });

  it('carries what was started over continue-as-new, out-of-order starts included', () => {
    const schedule = new BatchSchedule(undefined, 'one-unsigned');
    schedule.add(items('a', 'a', 'b'));
    startAll(schedule);
    expect(schedule.carried()).toEqual({ startedBelow: 1, startedAhead: [2] });
    expect(schedule.startedCount).toBe(2);
    const next = new BatchSchedule(schedule.carried(), 'one-unsigned');
    next.add(items('a', 'a', 'b').slice(1));
    expect(next.pendingCount).toBe(1);
    expect(next.startedCount).toBe(2);
  });
});

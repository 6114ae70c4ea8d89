import { linePlaceOf } from '../../activities/acquire-throttle';
import { unplaced, type LinePlace } from '../../throttle/line-places';
import { localPermitLine, slotDueMs } from '../../throttle/permit-line';
import { Throttle } from '../../throttle/throttle';

const bulk = (tenant: string, weight = 1): LinePlace => ({ rank: 5, tenant, weight });
const normal = (tenant: string, weight = 1): LinePlace => ({ rank: 3, tenant, weight });
const urgent = (tenant: string): LinePlace => ({ rank: 1, tenant, weight: 1 });

/** A line of 10 slots a second, burst 1, on the test's clock: slot n at n × 100 ms. */
function line() {
  const clock = { now: 1_000_000 };
  const permits = localPermitLine({ perSecond: 10, burst: 1 }, () => clock.now);
  return { clock, permits };
}

describe('the permit line orders its slots by priority and by tenants’ weighted shares', () => {
  it('gives an urgent newcomer the earliest slot a bulk intent held, that one its tail slot, once', async () => {
    const { permits } = line();
    const slots: number[] = [];
    for (let i = 0; i < 5; i++) slots.push(await permits.reserve(`a${i}`, bulk('acme')));
    expect(slots).toEqual([0, 100, 200, 300, 400]);
    // a0's slot is due now (it may be being taken): the urgent one takes a1's.
    expect(await permits.reserve('u1', urgent('globex'))).toBe(100);
    expect(await permits.reserve('a1', bulk('acme'))).toBe(500);
    // The next urgent one takes a2's, never a1's again: no intent is moved back twice.
    expect(await permits.reserve('u2', urgent('globex'))).toBe(200);
    expect(await permits.reserve('a2', bulk('acme'))).toBe(600);
    expect(await permits.reserve('a1', bulk('acme'))).toBe(500);
    // The same set of slots, only in another order: the line's pace is unchanged.
    const all = await Promise.all(
      ['a0', 'u1', 'u2', 'a3', 'a4', 'a1', 'a2'].map((key) => permits.reserve(key)),
    );
    expect(all.sort((x, y) => x - y)).toEqual([0, 100, 200, 300, 400, 500, 600]);
  });

  it('keeps one tenant’s own intents of one priority in the order they came, and moves no slot due now', async () => {
    const { clock, permits } = line();
    for (let i = 0; i < 3; i++) await permits.reserve(`a${i}`, normal('acme'));
    expect(await permits.reserve('a3', normal('acme'))).toBe(300);
    // A bulk newcomer goes before nobody of a higher priority.
    expect(await permits.reserve('b0', bulk('globex'))).toBe(400);
    clock.now += 100 - slotDueMs / 2;
    // a1's slot is due within slotDueMs: an urgent newcomer takes a2's instead.
    expect(await permits.reserve('u', urgent('initech'))).toBe(100 + slotDueMs / 2);
    expect(await permits.reserve('a1', normal('acme'))).toBe(slotDueMs / 2);
    expect(await permits.reserve('a2', normal('acme'))).toBe(400 + slotDueMs / 2);
  });

  it('lets a tenant holding less than its weighted share of the slots ahead go before one holding more', async () => {
    const slotsOf = async (weight: number) => {
      const { permits } = line();
      for (let i = 0; i < 10; i++) await permits.reserve(`a${i}`, normal('acme'));
      const globex: number[] = [];
      for (let i = 0; i < 5; i++)
        globex.push(await permits.reserve(`g${i}`, normal('globex', weight)));
      return { globex, initech: await permits.reserve('i0', normal('initech')) };
    };
    // acme holds 10 slots at weight 1: globex at weight 1 goes before it while holding fewer.
    expect((await slotsOf(1)).globex).toEqual([100, 200, 300, 400, 500]);
    // At weight 0.5 its share is reached at 4 slots (5 ÷ 0.5 = 10): the fifth goes to the tail,
    // behind the four of acme's moved there (1,000 to 1,300).
    const halved = await slotsOf(0.5);
    expect(halved.globex).toEqual([100, 200, 300, 400, 1400]);
    // initech, holding none at weight 1, goes before both: globex's earliest slot is the first.
    expect(halved.initech).toBe(100);
  });

  it('forgets a taken or cancelled slot’s tenant: its share counts only the slots still ahead', async () => {
    const { permits } = line();
    for (let i = 0; i < 3; i++) await permits.reserve(`a${i}`, normal('acme'));
    for (const key of ['a1', 'a2']) await permits.cancel(key);
    await permits.taken('a0');
    // acme holds nothing now: globex's newcomer takes the freed slots, moving nobody.
    expect(await permits.reserve('g0', normal('globex'))).toBe(100);
    expect(await permits.reserve('a3', normal('acme'))).toBe(200);
  });
});

describe('THROTTLE_LINE_ORDER', () => {
  it('arrival: the throttle gives slots in the order intents asked, whoever they are', async () => {
    const slotsIn = async (lineOrder: 'priority' | 'arrival') => {
      const settings = { maxInFlight: 10, perSecond: 10, burst: 1, maxWaitMs: 5000 };
      const throttle = await Throttle.start(
        { ...settings, permitTtlMs: 60_000, lineOrder },
        undefined,
        () => 1_000_000,
      );
      try {
        for (const key of ['a0', 'a1', 'a2']) await throttle.tryAcquire(key, key, bulk('acme'));
        const urgentTry = await throttle.tryAcquire('u', 'u', urgent('globex'));
        return urgentTry.granted ? 0 : urgentTry.retryAfterMs;
      } finally {
        await throttle.close();
      }
    };
    const lineMs = 125 / 0.9;
    expect(await slotsIn('priority')).toBe(Math.ceil(lineMs));
    expect(await slotsIn('arrival')).toBe(Math.ceil(3 * lineMs));
  });
});

describe('waits for a near slot inside the step', () => {
  it('up to the waits allowed, tries below urgent only while fewer than half are taken', async () => {
    // 1.25/s, burst 1: slots 889 ms apart, each near enough to wait for in the step (≤ 1 s), and
    // far enough apart that a timer late under load does not reach the next one; two tries may
    // wait at once, one below urgent.
    const settings = { maxInFlight: 10, perSecond: 1.25, burst: 1, maxWaitMs: 5000 };
    const throttle = await Throttle.start({ ...settings, permitTtlMs: 60_000, inStepWaits: 2 });
    try {
      expect(await throttle.tryAcquire('first')).toMatchObject({ granted: true });
      const r1 = throttle.tryAcquire('r1', 'r1', normal('acme'));
      const r2 = await throttle.tryAcquire('r2', 'r2', normal('acme'));
      expect(r2).toMatchObject({ granted: false, reason: 'reserved' });
      // Urgent: it takes r1's slot, the earliest, and waits for it here too.
      expect(await throttle.tryAcquire('u', 'u', urgent('globex'))).toMatchObject({
        granted: true,
      });
      // r1 finds its slot moved back when its wait ends: it comes back on a timer.
      expect(await r1).toMatchObject({ granted: false, reason: 'reserved' });
    } finally {
      await throttle.close();
    }
  });
});

describe("an intent's place in the line, from its workflow's priority", () => {
  it('reads fields a workflow was started without (0 or "") as the defaults', () => {
    expect(linePlaceOf({ priorityKey: 0, fairnessKey: '', fairnessWeight: 0 })).toEqual(unplaced);
    expect(linePlaceOf(undefined)).toEqual(unplaced);
    expect(linePlaceOf({ priorityKey: 1, fairnessKey: 'acme', fairnessWeight: 2 })).toEqual({
      rank: 1,
      tenant: 'acme',
      weight: 2,
    });
  });
});

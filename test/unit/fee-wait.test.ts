import { feeWaitGapMs, maxFeeWaitGapMs } from '../../activities/fee-ceiling';

/** How many looks a wait of `ms` takes, at a chain pace of a second. */
function looksWithin(ms: number): number {
  let waited = 0;
  let looks = 0;
  while (waited < ms) {
    waited += feeWaitGapMs(waited, 1000);
    looks++;
  }
  return looks;
}

describe('looks at the base fee for a payment waiting under its ceiling', () => {
  it("come at the chain's pace at first, then after half the wait so far: five minutes apart at most in the first day, an hour after", () => {
    expect(feeWaitGapMs(0, 12_000)).toBe(12_000);
    expect(feeWaitGapMs(10_000, 12_000)).toBe(12_000);
    expect(feeWaitGapMs(40_000, 12_000)).toBe(20_000);
    expect(feeWaitGapMs(3_600_000, 12_000)).toBe(maxFeeWaitGapMs.firstDay);
    expect(feeWaitGapMs(2 * 86_400_000, 12_000)).toBe(maxFeeWaitGapMs.later);
  });

  it('keep a long wait to a short history: a day under 320 looks, a month under 1,050', () => {
    expect(looksWithin(86_400_000)).toBeLessThan(320);
    expect(looksWithin(30 * 86_400_000)).toBeLessThan(1050);
  });
});

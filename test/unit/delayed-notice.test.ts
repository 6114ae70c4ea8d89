import { decideDelayedNotice, delayDetail, type DelayedLook } from '../../domain/delayed-notice';

// Unit tier (<1 s): when a look at an unmined payment tells its tenant `intent.delayed`.

const look = (change: Partial<DelayedLook> = {}): DelayedLook => ({
  unminedForMs: 10_000,
  delayedAfterMs: 3_000,
  noticesSent: 0,
  maxNotices: 3,
  bumped: false,
  ...change,
});

describe('decideDelayedNotice', () => {
  it('says nothing before the threshold, even at a fee bump', () => {
    expect(decideDelayedNotice(look({ unminedForMs: 2_999 }))).toBeNull();
    expect(decideDelayedNotice(look({ unminedForMs: 2_999, bumped: true }))).toBeNull();
  });

  it('tells once past the threshold', () => {
    expect(decideDelayedNotice(look({ unminedForMs: 3_000 }))).toBe('threshold');
    expect(decideDelayedNotice(look({ noticesSent: 1 }))).toBeNull();
  });

  it('tells again at each fee bump after the first notice', () => {
    expect(decideDelayedNotice(look({ noticesSent: 1, bumped: true }))).toBe('fee_bump');
    expect(decideDelayedNotice(look({ noticesSent: 2, bumped: true }))).toBe('fee_bump');
  });

  it('never more than the most notices a payment sends (0: none)', () => {
    expect(decideDelayedNotice(look({ noticesSent: 3, bumped: true }))).toBeNull();
    expect(decideDelayedNotice(look({ maxNotices: 0 }))).toBeNull();
  });
});

describe('delayDetail', () => {
  it('says what the relayer did and will do, in words and figures', () => {
    const facts = {
      reason: 'fee_bump' as const,
      unminedForMs: 75_400,
      feeBumps: 2,
      maxFeePerGas: 3_200_000_000n,
      nextLookInMs: 12_000,
      stuckAfterMs: 60_000,
    };
    expect(delayDetail(facts)).toEqual({
      reason: 'fee_bump',
      unminedForMs: 75_400,
      feeBumps: 2,
      maxFeePerGas: '3200000000',
      did: 'raised its fee 2 time(s), now up to 3.2 gwei',
      next: "looks again in about 12 s; raises the fee again once the transaction has waited 60 s unmined, within the chain's caps",
    });
    expect(delayDetail({ ...facts, feeBumps: 0 }).did).toBe(
      'signed and sent; not mined after 75 s',
    );
  });
});

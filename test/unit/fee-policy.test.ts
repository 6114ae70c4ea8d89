import { parseEther, parseGwei } from 'viem';
import {
  cancelBid,
  capsUnder,
  firstBid,
  withTipFloor,
  replacementBid,
  type FeeMarket,
  type FeePolicy,
} from '../../chain/fee-policy';

const caps = {
  maxFeePerGas: parseGwei('100'),
  maxPriorityFeePerGas: parseGwei('5'),
  maxFeePerTransfer: parseEther('0.01'),
};
const policy: FeePolicy = {
  caps,
  replacementBumpPercent: 20,
  cancelMaxFeePerGas: parseGwei('200'),
};
const market = (base: string, tip = '1'): FeeMarket => ({
  baseFeePerGas: parseGwei(base),
  maxFeePerGas: parseGwei(base) * 2n + parseGwei(tip),
  maxPriorityFeePerGas: parseGwei(tip),
});

describe('first bid', () => {
  it("is the market's when it is under the caps", () => {
    expect(firstBid(market('10'), 21_000n, caps)).toEqual({
      ok: true,
      bid: { maxFeePerGas: parseGwei('21'), maxPriorityFeePerGas: parseGwei('1') },
    });
  });

  it('is cut down to the caps, tip included, while the base fee still fits', () => {
    expect(firstBid(market('60', '9'), 21_000n, caps)).toEqual({
      ok: true,
      bid: { maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: parseGwei('5') },
    });
  });

  it('is refused, with the reason, when the base fee is above the cap', () => {
    const choice = firstBid(market('120'), 21_000n, caps);
    expect(choice).toEqual({
      ok: false,
      reason: expect.stringMatching(/base fee 120 gwei is above/),
    });
  });

  it('keeps gas × max fee under the per-transfer cap', () => {
    // 1,000,000 gas at most 10 gwei = 0.01 ether.
    const choice = firstBid(market('4'), 1_000_000n, caps);
    expect(choice).toEqual({
      ok: true,
      bid: { maxFeePerGas: parseGwei('9'), maxPriorityFeePerGas: parseGwei('1') },
    });
    expect(firstBid(market('11'), 1_000_000n, caps).ok).toBe(false);
  });
});

describe('replacement bid', () => {
  const previous = { maxFeePerGas: parseGwei('20'), maxPriorityFeePerGas: parseGwei('2') };

  it('outbids the stuck attempt by the bump on both fields, rounding up', () => {
    expect(replacementBid(previous, market('5'), 21_000n, policy)).toEqual({
      ok: true,
      bid: { maxFeePerGas: parseGwei('24'), maxPriorityFeePerGas: parseGwei('2.4') },
    });
    const odd = { maxFeePerGas: 7n, maxPriorityFeePerGas: 3n };
    expect(
      replacementBid(
        odd,
        { baseFeePerGas: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n },
        21_000n,
        policy,
      ),
    ).toEqual({
      ok: true,
      bid: { maxFeePerGas: 9n, maxPriorityFeePerGas: 4n },
    });
  });

  it('meets the market when the market moved further than the bump', () => {
    expect(replacementBid(previous, market('40', '3'), 21_000n, policy)).toEqual({
      ok: true,
      bid: { maxFeePerGas: parseGwei('83'), maxPriorityFeePerGas: parseGwei('3') },
    });
  });

  it('stops at the caps, and refuses when even the minimum bump would pass them', () => {
    expect(replacementBid(previous, market('70'), 21_000n, policy)).toEqual({
      ok: true,
      bid: { maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: parseGwei('2.4') },
    });
    const atCap = { maxFeePerGas: parseGwei('90'), maxPriorityFeePerGas: parseGwei('2') };
    expect(replacementBid(atCap, market('70'), 21_000n, policy)).toEqual({
      ok: false,
      reason: expect.stringMatching(/at least 108 gwei/),
    });
    const tipAtCap = { maxFeePerGas: parseGwei('20'), maxPriorityFeePerGas: parseGwei('5') };
    expect(replacementBid(tipAtCap, market('5'), 21_000n, policy).ok).toBe(false);
  });

  it('bids at least what a speed-up asked, above the bump and the market, and refuses past the caps', () => {
    const asked = { maxFeePerGas: parseGwei('60'), maxPriorityFeePerGas: parseGwei('4') };
    expect(replacementBid(previous, market('5'), 21_000n, policy, asked)).toEqual({
      ok: true,
      bid: asked,
    });
    // Asked for the fee only: the tip is the bump's.
    expect(
      replacementBid(previous, market('5'), 21_000n, policy, { maxFeePerGas: parseGwei('60') }),
    ).toEqual({
      ok: true,
      bid: { maxFeePerGas: parseGwei('60'), maxPriorityFeePerGas: parseGwei('2.4') },
    });
    // Less than the bump asks: the bump's.
    expect(
      replacementBid(previous, market('5'), 21_000n, policy, { maxFeePerGas: parseGwei('21') }),
    ).toEqual({
      ok: true,
      bid: { maxFeePerGas: parseGwei('24'), maxPriorityFeePerGas: parseGwei('2.4') },
    });
    expect(
      replacementBid(previous, market('5'), 21_000n, policy, { maxFeePerGas: parseGwei('101') }),
    ).toEqual({ ok: false, reason: expect.stringMatching(/at least 101 gwei/) });
    expect(
      replacementBid(previous, market('5'), 21_000n, policy, {
        maxPriorityFeePerGas: parseGwei('6'),
      }).ok,
    ).toBe(false);
  });
});

describe('a cancel bid', () => {
  const attempts = [
    { maxFeePerGas: parseGwei('50'), maxPriorityFeePerGas: parseGwei('4') },
    { maxFeePerGas: parseGwei('90'), maxPriorityFeePerGas: parseGwei('2') },
  ];

  it('outbids every attempt on both fields by the bump, above the send caps, under its own', () => {
    expect(cancelBid(attempts, market('10'), 21_000n, policy)).toEqual({
      ok: true,
      bid: { maxFeePerGas: parseGwei('108'), maxPriorityFeePerGas: parseGwei('4.8') },
    });
  });

  it('is refused when outbidding them passes the cancel cap', () => {
    const high = [{ maxFeePerGas: parseGwei('180'), maxPriorityFeePerGas: parseGwei('1') }];
    expect(cancelBid(high, market('10'), 21_000n, policy)).toEqual({
      ok: false,
      reason: expect.stringMatching(/at least 216 gwei/),
    });
  });
});

describe("a payment's own ceiling", () => {
  const ceiling = parseGwei('30');
  const under = { ...policy, caps: capsUnder(caps, ceiling) };

  it('lowers the caps to it, never raises them', () => {
    expect(capsUnder(caps, ceiling)).toEqual({
      ...caps,
      maxFeePerGas: ceiling,
      maxPriorityFeePerGas: caps.maxPriorityFeePerGas,
    });
    expect(capsUnder(caps, parseGwei('1000'))).toEqual(caps);
    expect(capsUnder(caps, parseGwei('3')).maxPriorityFeePerGas).toBe(parseGwei('3'));
    expect(capsUnder(caps, undefined)).toBe(caps);
  });

  it('bounds the first bid and every replacement, and refuses a bump past it', () => {
    expect(firstBid(market('20'), 21_000n, under.caps)).toEqual({
      ok: true,
      bid: { maxFeePerGas: ceiling, maxPriorityFeePerGas: parseGwei('1') },
    });
    expect(firstBid(market('31'), 21_000n, under.caps).ok).toBe(false);
    const previous = { maxFeePerGas: parseGwei('20'), maxPriorityFeePerGas: parseGwei('2') };
    expect(replacementBid(previous, market('5'), 21_000n, under)).toEqual({
      ok: true,
      bid: { maxFeePerGas: parseGwei('24'), maxPriorityFeePerGas: parseGwei('2.4') },
    });
    const near = { maxFeePerGas: parseGwei('26'), maxPriorityFeePerGas: parseGwei('2') };
    expect(replacementBid(near, market('5'), 21_000n, under).ok).toBe(false);
  });
});

describe("a chain's tip floor (Polygon PoS's minimum priority fee)", () => {
  it("raises the node's suggested tip to it, and the max fee with it; a tip above it stays", () => {
    expect(withTipFloor(market('10', '2'), parseGwei('30'))).toEqual({
      baseFeePerGas: parseGwei('10'),
      maxFeePerGas: parseGwei('50'),
      maxPriorityFeePerGas: parseGwei('30'),
    });
    expect(withTipFloor(market('10', '40'), parseGwei('30'))).toEqual(market('10', '40'));
    expect(withTipFloor(market('10', '2'), 0n)).toEqual(market('10', '2'));
  });
});

import { formatGwei } from 'viem';

/**
 * EIP-1559 bids under the operator's caps. Pure: the chain adapter feeds it the node's estimate,
 * tests feed it numbers. A bid never exceeds a cap; when the market is above the caps the answer
 * is "not now" with the reason, never a bid that overpays.
 */
export interface FeeBid {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** What the node says the next block costs: its base fee and a bid that should get in. */
export interface FeeMarket extends FeeBid {
  baseFeePerGas: bigint;
}

export interface FeeCaps {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** Most a single transfer may spend on gas: gas limit × max fee per gas. */
  maxFeePerTransfer: bigint;
}

export interface FeePolicy {
  caps: FeeCaps;
  /** Cap on the max fee and the tip per gas of a cancel, which must outbid every attempt. */
  cancelMaxFeePerGas: bigint;
  /** A replacement outbids the previous attempt by at least this much, on both fields. */
  replacementBumpPercent: number;
}

export type FeeChoice = { ok: true; bid: FeeBid } | { ok: false; reason: string };

/**
 * How a chain charges for gas: Ethereum's EIP-1559 market, an OP-stack rollup's (an L1 data fee
 * on top), Arbitrum's (gas units that include the L1 cost), Polygon PoS's (a tip floor).
 */
export const feeFamilies = ['ethereum', 'op-stack', 'arbitrum', 'polygon'] as const;
export type FeeFamily = (typeof feeFamilies)[number];

/** The node's suggested tip raised to the chain's floor (`minPriorityFeePerGas`), if it has one. */
export function withTipFloor(market: FeeMarket, floor: bigint): FeeMarket {
  if (market.maxPriorityFeePerGas >= floor) return market;
  const raise = floor - market.maxPriorityFeePerGas;
  return { ...market, maxPriorityFeePerGas: floor, maxFeePerGas: market.maxFeePerGas + raise };
}

const gwei = (wei: bigint) => `${formatGwei(wei)} gwei`;

/** The highest max fee per gas the caps allow for a transfer using `gas`. */
function feeCeiling(gas: bigint, caps: FeeCaps): bigint {
  const byCost = caps.maxFeePerTransfer / gas;
  return byCost < caps.maxFeePerGas ? byCost : caps.maxFeePerGas;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** The caps lowered to a payment's own ceiling per gas, when it has one. */
export const capsUnder = (caps: FeeCaps, ceiling: bigint | undefined): FeeCaps =>
  ceiling === undefined
    ? caps
    : {
        ...caps,
        maxFeePerGas: min(caps.maxFeePerGas, ceiling),
        maxPriorityFeePerGas: min(caps.maxPriorityFeePerGas, ceiling),
      };
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** The first attempt's bid: the market's, cut down to the caps if it is above them. */
export function firstBid(market: FeeMarket, gas: bigint, caps: FeeCaps): FeeChoice {
  const ceiling = feeCeiling(gas, caps);
  if (ceiling < market.baseFeePerGas) {
    return {
      ok: false,
      reason:
        `base fee ${gwei(market.baseFeePerGas)} is above the ${gwei(ceiling)} per gas the caps ` +
        `allow (max fee per gas ${gwei(caps.maxFeePerGas)}, max ${caps.maxFeePerTransfer} wei per transfer)`,
    };
  }
  const maxFeePerGas = min(market.maxFeePerGas, ceiling);
  const maxPriorityFeePerGas = min(
    min(market.maxPriorityFeePerGas, caps.maxPriorityFeePerGas),
    maxFeePerGas,
  );
  return { ok: true, bid: { maxFeePerGas, maxPriorityFeePerGas } };
}

const bumped = (wei: bigint, percent: number) => (wei * BigInt(100 + percent) + 99n) / 100n;

/**
 * A replacement for a transaction stuck with `previous`: at least the node's replacement minimum
 * above it on both fields, at least what the market asks now, and at least what a person `asked`
 * for (a speed-up); refused if that needs more than the caps allow (the stuck attempt then keeps
 * its chance, and a person hears of it on timeout). The automatic bump and a speed-up both bid
 * here: one rule for every replacement at a nonce.
 */
export function replacementBid(
  previous: FeeBid,
  market: FeeMarket,
  gas: bigint,
  policy: FeePolicy,
  asked: Partial<FeeBid> = {},
): FeeChoice {
  const { caps, replacementBumpPercent } = policy;
  const ceiling = feeCeiling(gas, caps);
  const leastFee = max(
    bumped(previous.maxFeePerGas, replacementBumpPercent),
    asked.maxFeePerGas ?? 0n,
  );
  const leastTip = max(
    bumped(previous.maxPriorityFeePerGas, replacementBumpPercent),
    asked.maxPriorityFeePerGas ?? 0n,
  );
  if (leastFee > ceiling || leastTip > caps.maxPriorityFeePerGas) {
    return {
      ok: false,
      reason:
        `a replacement must bid at least ${gwei(leastFee)} (tip ${gwei(leastTip)}), above the caps ` +
        `(${gwei(ceiling)} per gas, tip ${gwei(caps.maxPriorityFeePerGas)})`,
    };
  }
  const maxFeePerGas = min(max(leastFee, market.maxFeePerGas), ceiling);
  const maxPriorityFeePerGas = min(
    min(max(leastTip, market.maxPriorityFeePerGas), caps.maxPriorityFeePerGas),
    maxFeePerGas,
  );
  return { ok: true, bid: { maxFeePerGas, maxPriorityFeePerGas } };
}

/**
 * A cancel of an intent's nonce: a plain transfer (`gas`) that outbids every attempt signed at
 * that nonce by the node's replacement minimum on both fields, under the cancel's own cap.
 */
export function cancelBid(
  attempts: readonly FeeBid[],
  market: FeeMarket,
  gas: bigint,
  policy: FeePolicy,
): FeeChoice {
  const highest = attempts.reduce(
    (top, bid) => ({
      maxFeePerGas: max(top.maxFeePerGas, bid.maxFeePerGas),
      maxPriorityFeePerGas: max(top.maxPriorityFeePerGas, bid.maxPriorityFeePerGas),
    }),
    { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
  );
  const cap = policy.cancelMaxFeePerGas;
  return replacementBid(highest, market, gas, {
    ...policy,
    caps: { maxFeePerGas: cap, maxPriorityFeePerGas: cap, maxFeePerTransfer: cap * gas },
  });
}

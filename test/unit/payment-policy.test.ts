import { nativeBookOf } from '../../domain/ledger-book';
import {
  PolicyRule,
  noPolicy,
  policyBreach,
  type PaymentPolicy,
  type RecipientEntry,
} from '../../domain/payment-policy';

const book = nativeBookOf(1);
const to = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const policy = (overrides: Partial<PaymentPolicy>): PaymentPolicy => ({
  ...noPolicy('acme'),
  version: 1,
  ...overrides,
});
const pay = (amount: bigint, chainId = 1) => ({ chainId, book: nativeBookOf(chainId), to, amount });
const entry = (list: 'allow' | 'deny'): RecipientEntry => ({
  chainId: 1,
  address: to,
  list,
  label: 'x',
});

describe('policyBreach', () => {
  it('bounds nothing without a policy', () => {
    expect(policyBreach(noPolicy('acme'), pay(10n ** 30n), {}, {})).toBeUndefined();
  });

  it('most per intent: at and below pass, one above is refused with the figures', () => {
    const capped = policy({ limits: [{ book, maxPerIntent: 100n }] });
    expect(policyBreach(capped, pay(99n), {}, {})).toBeUndefined();
    expect(policyBreach(capped, pay(100n), {}, {})).toBeUndefined();
    expect(policyBreach(capped, pay(101n), {}, {})).toEqual({
      rule: PolicyRule.maxPerIntent,
      limit: 100n,
      wouldBe: 101n,
    });
    // Another chain's book is not bounded by it.
    expect(policyBreach(capped, pay(101n, 2), {}, {})).toBeUndefined();
  });

  it('rolling windows: what counts plus the payment, at the limit passes, one over does not', () => {
    const windowed = policy({ limits: [{ book, perDay: 100n, perWeek: 150n }] });
    expect(policyBreach(windowed, pay(40n), {}, { perDay: 60n, perWeek: 110n })).toBeUndefined();
    expect(policyBreach(windowed, pay(41n), {}, { perDay: 60n, perWeek: 60n })).toEqual({
      rule: PolicyRule.perDay,
      limit: 100n,
      wouldBe: 101n,
    });
    expect(policyBreach(windowed, pay(41n), {}, { perDay: 0n, perWeek: 110n })).toEqual({
      rule: PolicyRule.perWeek,
      limit: 150n,
      wouldBe: 151n,
    });
    expect(() => policyBreach(windowed, pay(1n), {}, { perDay: 0n })).toThrow(/perWeek/);
  });

  it('recipients: a denied one anywhere, an allow-list chain only its own', () => {
    expect(policyBreach(policy({}), pay(1n), { recipient: entry('deny') }, {})).toEqual({
      rule: PolicyRule.recipientDenied,
    });
    expect(policyBreach(policy({}), pay(1n), { recipient: entry('allow') }, {})).toBeUndefined();
    const listed = policy({ allowListChains: [1] });
    expect(policyBreach(listed, pay(1n), {}, {})).toEqual({
      rule: PolicyRule.recipientNotAllowed,
    });
    expect(policyBreach(listed, pay(1n), { recipient: entry('allow') }, {})).toBeUndefined();
    expect(policyBreach(listed, pay(1n, 2), {}, {})).toBeUndefined();
  });
});

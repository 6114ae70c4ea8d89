import { BrokenInvariantError } from './errors/internal-errors';
import type { LedgerBook } from './ledger-book';

/**
 * What a tenant's intents may pay, beyond its balance: ceilings per book (one asset on one
 * chain) and who may be paid per chain. Set by operators, versioned: every change is a new
 * version, and an intent records the version it was admitted under. Pure: the store keeps it,
 * operations/payment-policy.ts applies it.
 */
export interface PaymentPolicy {
  tenantId: string;
  /** 0: no policy was ever set (nothing beyond the balance bounds the tenant). */
  version: number;
  limits: BookLimits[];
  /** Chains where only allow-listed recipients may be paid (elsewhere: anyone not denied). */
  allowListChains: number[];
}

/** Ceilings on one book, in its base units; an absent one does not bound. */
export interface BookLimits {
  book: LedgerBook;
  maxPerIntent?: bigint;
  /** What may leave in any rolling 24 hours. */
  perDay?: bigint;
  /** What may leave in any rolling 7 days. */
  perWeek?: bigint;
  /** An intent of at least this much waits for a second key's approval before anything else. */
  approvalThreshold?: bigint;
}

export type RecipientList = 'allow' | 'deny';

export interface RecipientEntry {
  chainId: number;
  address: string;
  list: RecipientList;
  label: string;
}

/**
 * A contract function a tenant's intents may call on one chain, by its selector, with at most
 * `maxValue` of the native coin (absent: any value the limits allow).
 */
export interface AllowedCall {
  chainId: number;
  contract: string;
  selector: `0x${string}`;
  /** The function as the operator named it ("deposit(bytes32)"), when it was named so. */
  signature?: string;
  maxValue?: bigint;
  label: string;
  /** The contract may be deployed after its calls are admitted: a target without code is let by. */
  allowNoCode?: true;
}

/** Each rule a payment can break, by the word clients branch on (`details.rule`). */
export const PolicyRule = {
  maxPerIntent: 'max_per_intent',
  perDay: 'limit_24h',
  perWeek: 'limit_7d',
  recipientDenied: 'recipient_denied',
  recipientNotAllowed: 'recipient_not_allowed',
  /** At an approval threshold lowered after its batch was submitted needing no approval. */
  approvalRequired: 'approval_required',
  /** A call to a contract function the tenant's policy does not name. */
  callNotAllowed: 'call_not_allowed',
  /** A call sending more native value than its allowed function's bound. */
  callValueLimit: 'call_value_limit',
  /** A call to a registered token's contract: token payouts are transfers, whose books are kept. */
  callToToken: 'call_to_token',
} as const;
export type PolicyRule = (typeof PolicyRule)[keyof typeof PolicyRule];

export const noPolicy = (tenantId: string): PaymentPolicy => ({
  tenantId,
  version: 0,
  limits: [],
  allowListChains: [],
});

/** The rolling windows a book's limits need counted; none: no sum to read. */
export const rollingWindows = (limits: BookLimits | undefined): ('perDay' | 'perWeek')[] =>
  (['perDay', 'perWeek'] as const).filter((window) => limits?.[window] !== undefined);

export const windowMs = { perDay: 24 * 3600_000, perWeek: 7 * 24 * 3600_000 } as const;

export interface PolicyBreach {
  rule: PolicyRule;
  /** The bound, in base units (limits only). */
  limit?: bigint;
  /** What the payment would make it (the amount, or the window's total with it). */
  wouldBe?: bigint;
}

export interface PaymentUnderPolicy {
  chainId: number;
  book: LedgerBook;
  to: string;
  amount: bigint;
  /** A contract call's function selector (absent: a transfer). */
  selector?: `0x${string}`;
}

/** What the tenant's lists say of a payment's recipient and, for a call, of its function. */
export interface ListedFor {
  recipient?: RecipientEntry;
  call?: AllowedCall;
}

/**
 * The first rule `payment` breaks, or undefined. `listed`: the recipient's entry on the
 * tenant's lists for the chain and a call's allowed function (if any); `committed`: per rolling
 * window, what already counts against it (without this payment), given for every window the
 * book's limits name. A denied address is never paid, called or not; a call needs its function
 * allowed (the call list is its own allow-list), a transfer an allow-listed recipient where the
 * chain asks for one.
 */
export function policyBreach(
  policy: PaymentPolicy,
  payment: PaymentUnderPolicy,
  { recipient, call }: ListedFor,
  committed: Partial<Record<'perDay' | 'perWeek', bigint>>,
): PolicyBreach | undefined {
  if (recipient?.list === 'deny') return { rule: PolicyRule.recipientDenied };
  if (payment.selector !== undefined) {
    if (!call) return { rule: PolicyRule.callNotAllowed };
    if (call.maxValue !== undefined && payment.amount > call.maxValue) {
      return { rule: PolicyRule.callValueLimit, limit: call.maxValue, wouldBe: payment.amount };
    }
  } else if (policy.allowListChains.includes(payment.chainId) && recipient?.list !== 'allow') {
    return { rule: PolicyRule.recipientNotAllowed };
  }
  const limits = policy.limits.find((limit) => limit.book === payment.book);
  if (limits?.maxPerIntent !== undefined && payment.amount > limits.maxPerIntent) {
    return { rule: PolicyRule.maxPerIntent, limit: limits.maxPerIntent, wouldBe: payment.amount };
  }
  for (const window of rollingWindows(limits)) {
    const counted = committed[window];
    if (counted === undefined) {
      throw new BrokenInvariantError({ rule: `policyBreach: ${window} was not counted` });
    }
    const wouldBe = counted + payment.amount;
    if (wouldBe > limits![window]!) {
      return {
        rule: window === 'perDay' ? PolicyRule.perDay : PolicyRule.perWeek,
        limit: limits![window],
        wouldBe,
      };
    }
  }
  return undefined;
}

/** Whether a book's ceilings bound anything (a limits entry with none is no entry). */
export const boundsAnything = (limits: BookLimits): boolean =>
  bookLimitKeys.some((key) => limits[key] !== undefined);

export const bookLimitKeys = ['maxPerIntent', 'perDay', 'perWeek', 'approvalThreshold'] as const;

/** Whether an intent paying `amount` from `book` waits for approval first. */
export const needsApproval = (policy: PaymentPolicy, book: LedgerBook, amount: bigint): boolean => {
  const threshold = policy.limits.find((limits) => limits.book === book)?.approvalThreshold;
  return threshold !== undefined && amount >= threshold;
};

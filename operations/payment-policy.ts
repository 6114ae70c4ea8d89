import type { Kysely } from 'kysely';
import { isNative, ledgerAssetOf, shownIn, type AssetRef } from '../domain/asset';
import { PolicyViolationError } from '../domain/errors';
import {
  PolicyRule,
  policyBreach,
  rollingWindows,
  windowMs,
  type PaymentPolicy,
  type PolicyBreach,
  type RecipientEntry,
} from '../domain/payment-policy';
import { findToken } from '../store/assets';
import type { Database } from '../store/database';
import { selectorOf } from '../domain/contract-call';
import { lockTenantPolicy, policyInForce } from '../store/policies';
import { findRecipient } from '../store/policy-recipients';
import { committedInBook, type BookOfIntents } from '../store/policy-spend';
import { findAllowedCall } from '../store/allowed-calls';
import type { Schema } from '../store/schema';

/** A payment as the policy sees it: who pays, on which chain, what, to whom. */
export interface PolicedPayment {
  tenantId: string;
  chainId: number;
  asset: AssetRef;
  to: string;
  amount: bigint;
  /** A contract call's data (absent or null: a transfer). */
  callData?: `0x${string}` | null;
}

/**
 * When the policy is applied, and what counts against a rolling limit then:
 * - `admission` (under the admission lock): every intent admitted and not ended, and what was
 *   paid in the window; the new intent is not written yet;
 * - `hold` (under the tenant's policy lock, in the hold's transaction): every hold not ended and
 *   what was paid, the intent's own hold not placed yet;
 * - `signing` (just before the first signing): the same, the intent's own hold among them.
 */
export type PolicyStage = 'admission' | 'hold' | 'signing';

/** A batch's item policed at submit: its place, and what the items before it take from its book. */
export interface PolicedBatchItem {
  item: number;
  alongside: bigint;
}

/**
 * Applies the tenant's policy in force to `payment`: returns the policy (its version is what the
 * intent is admitted under) or throws PolicyViolation naming the rule and its figures. A tenant
 * without a policy costs one indexed read.
 */
export async function enforcePaymentPolicy(
  database: Database,
  trx: Kysely<Schema>,
  payment: PolicedPayment,
  stage: PolicyStage,
  now: Date,
  batchItem?: PolicedBatchItem,
): Promise<PaymentPolicy> {
  const book = ledgerAssetOf(payment.chainId, payment.asset);
  const windowsOf = (policy: PaymentPolicy) =>
    rollingWindows(policy.limits.find((limits) => limits.book === book));
  const selector = payment.callData ? selectorOf(payment.callData) : undefined;
  let policy = await policyInForce(trx, payment.tenantId);
  // A call is refused unless a policy allows it: no policy allows none.
  if (policy.version === 0 && selector === undefined) return policy;
  if (stage === 'hold' && windowsOf(policy).length > 0) {
    // Holds of one tenant are counted one at a time, against the policy as it is once locked.
    await lockTenantPolicy(database, trx, payment.tenantId);
    policy = await policyInForce(trx, payment.tenantId);
  }
  const of: BookOfIntents = { ...payment, book };
  const windows = windowsOf(policy);
  const since = Object.fromEntries(
    windows.map((window) => [window, new Date(now.getTime() - windowMs[window])]),
  );
  const [recipient, committed, call, token] = await Promise.all([
    findRecipient(trx, payment.tenantId, payment.chainId, payment.to),
    committedInBook(trx, of, since, stage === 'admission'),
    selector &&
      findAllowedCall(trx, payment.tenantId, { ...payment, contract: payment.to, selector }),
    selector && findToken(trx, payment.chainId, { address: payment.to as `0x${string}` }),
  ]);
  if (stage === 'signing') {
    // The intent's own hold is among the active ones: the payment is added once, below.
    for (const window of windows) committed[window]! -= payment.amount;
  }
  for (const window of windows) committed[window]! += batchItem?.alongside ?? 0n;
  const breach: PolicyBreach | undefined = token
    ? { rule: PolicyRule.callToToken }
    : policyBreach(
        policy,
        { ...payment, book, ...(selector && { selector }) },
        { recipient, ...(call && { call }) },
        committed,
      );
  if (!breach) return policy;
  const words = await wordsOf(trx, payment, breach, recipient);
  throw new PolicyViolationError(
    {
      tenantId: payment.tenantId,
      rule: breach.rule,
      policyVersion: policy.version,
      ...(breach.limit !== undefined && { limit: breach.limit.toString() }),
      ...(breach.wouldBe !== undefined && { wouldBe: breach.wouldBe.toString() }),
      ...(batchItem && { item: batchItem.item }),
    },
    words,
  );
}

/** The rule and its figures in the asset's own units, for the person refused. */
async function wordsOf(
  db: Kysely<Schema>,
  payment: PolicedPayment,
  breach: PolicyBreach,
  recipient: RecipientEntry | undefined,
): Promise<string> {
  const chain = `on chain ${payment.chainId}`;
  const selector = payment.callData && selectorOf(payment.callData);
  const native = shownIn(undefined);
  switch (breach.rule) {
    case PolicyRule.callToToken:
      return `${breach.rule}: ${payment.to} is a token registered ${chain}: pay it out with a transfer (asset), whose books are kept`;
    case PolicyRule.callNotAllowed:
      return `${breach.rule}: the tenant's policy does not allow function ${selector} of contract ${payment.to} ${chain}`;
    case PolicyRule.callValueLimit:
      return `${breach.rule}: function ${selector} of ${payment.to} may be sent at most ${native(breach.limit!)} ${chain}, ${native(breach.wouldBe!)} asked`;
    case PolicyRule.recipientDenied:
      return `${breach.rule}: ${payment.to} is on the deny-list ${chain} (${recipient!.label})`;
    case PolicyRule.recipientNotAllowed:
      return `${breach.rule}: ${chain} only allow-listed recipients may be paid, and ${payment.to} is not one`;
    default: {
      const token = isNative(payment.asset)
        ? undefined
        : await findToken(db, payment.chainId, { address: payment.asset });
      const shown = shownIn(token);
      const limit = shown(breach.limit!);
      const wouldBe = shown(breach.wouldBe!);
      if (breach.rule === PolicyRule.maxPerIntent) {
        return `${breach.rule}: at most ${limit} an intent ${chain}, ${wouldBe} asked`;
      }
      const span = breach.rule === PolicyRule.perDay ? '24 hours' : '7 days';
      return `${breach.rule}: at most ${limit} in any ${span} ${chain}; with this payment ${wouldBe} (paid in the window and not yet ended)`;
    }
  }
}

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
import {
  committedInBook,
  findRecipient,
  lockTenantPolicy,
  policyInForce,
  type BookOfIntents,
} from '../store/policies';
import type { Schema } from '../store/schema';

/** A payment as the policy sees it: who pays, on which chain, what, to whom. */
export interface PolicedPayment {
  tenantId: string;
  chainId: number;
  asset: AssetRef;
  to: string;
  amount: bigint;
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
): Promise<PaymentPolicy> {
  const book = ledgerAssetOf(payment.chainId, payment.asset);
  const windowsOf = (policy: PaymentPolicy) =>
    rollingWindows(policy.limits.find((limits) => limits.book === book));
  let policy = await policyInForce(trx, payment.tenantId);
  if (policy.version === 0) return policy;
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
  const [recipient, committed] = await Promise.all([
    findRecipient(trx, payment.tenantId, payment.chainId, payment.to),
    committedInBook(trx, of, since, stage === 'admission'),
  ]);
  if (stage === 'signing') {
    // The intent's own hold is among the active ones: the payment is added once, below.
    for (const window of windows) committed[window]! -= payment.amount;
  }
  const breach = policyBreach(policy, { ...payment, book }, recipient, committed);
  if (!breach) return policy;
  const words = await wordsOf(trx, payment, breach, recipient);
  throw new PolicyViolationError(
    {
      tenantId: payment.tenantId,
      rule: breach.rule,
      policyVersion: policy.version,
      ...(breach.limit !== undefined && { limit: breach.limit.toString() }),
      ...(breach.wouldBe !== undefined && { wouldBe: breach.wouldBe.toString() }),
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
  switch (breach.rule) {
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

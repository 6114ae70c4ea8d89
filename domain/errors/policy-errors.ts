import { RelayerError } from './relayer-error';
import { ErrorType, notAwaitingApprovalMessage } from '../error-catalogue';
import type { PolicyRule } from '../payment-policy';

// What a tenant's payment policy refuses (domain/payment-policy.ts): at admission (a 422 with
// nothing written) and again before the first signing (the intent fails unsigned, hold released).

export interface PolicyViolationDetails {
  tenantId: string;
  rule: PolicyRule;
  /** The policy version that refused it. */
  policyVersion: number;
  /** The bound and what the payment would make it, in base units (limits only). */
  limit?: string;
  wouldBe?: string;
}

export class PolicyViolationError extends RelayerError<PolicyViolationDetails> {
  /** `words`: the rule and its figures as a person reads them (amounts in the asset's units). */
  constructor(details: PolicyViolationDetails, words: string) {
    super(
      ErrorType.policyViolation,
      `tenant ${details.tenantId}'s payment policy (version ${details.policyVersion}) refuses it: ${words}`,
      details,
    );
  }
}

export class NotAwaitingApprovalError extends RelayerError<{ intentId: string; status: string }> {
  constructor(intentId: string, status: string) {
    super(ErrorType.notAwaitingApproval, notAwaitingApprovalMessage(intentId, status), {
      intentId,
      status,
    });
  }
}

/** Four eyes: the key that submitted an intent cannot be the one that approves it. */
export class ApprovalRefusedError extends RelayerError<{ intentId: string; keyId: string }> {
  constructor(intentId: string, keyId: string) {
    super(
      ErrorType.approvalRefused,
      `key ${keyId} submitted intent ${intentId} and cannot approve it too: another key with the approve scope (or an operator) must`,
      { intentId, keyId },
    );
  }
}

import { RelayerError } from './relayer-error';
import { ErrorName, notAwaitingApprovalMessage } from '../error-catalogue';
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
  /** The batch item refused, when a batch was. */
  item?: number;
}

export class PolicyViolationError extends RelayerError<PolicyViolationDetails> {
  /** `words`: the rule and its figures as a person reads them (amounts in the asset's units). */
  constructor(details: PolicyViolationDetails, words: string) {
    super(
      ErrorName.policyViolation,
      `${details.item === undefined ? '' : `item ${details.item}: `}tenant ${details.tenantId}'s payment policy (version ${details.policyVersion}) refuses it: ${words}`,
      details,
    );
  }
}

export class NotAwaitingApprovalError extends RelayerError<
  ({ intentId: string } | { batchId: string }) & { status: string }
> {
  constructor(id: string, status: string, kind: 'intent' | 'batch' = 'intent') {
    super(ErrorName.notAwaitingApproval, notAwaitingApprovalMessage({ kind, id }, status), {
      ...(kind === 'batch' ? { batchId: id } : { intentId: id }),
      status,
    });
  }
}

/** Four eyes: the key that submitted an intent cannot be the one that approves it. */
export class ApprovalRefusedError extends RelayerError<
  ({ intentId: string } | { batchId: string }) & { keyId: string }
> {
  constructor(id: string, keyId: string, kind: 'intent' | 'batch' = 'intent') {
    super(
      ErrorName.approvalRefused,
      `key ${keyId} submitted ${kind} ${id} and cannot approve it too: another key with the approve scope (or an operator) must`,
      { ...(kind === 'batch' ? { batchId: id } : { intentId: id }), keyId },
    );
  }
}

/**
 * A contract call is sent only from a hot wallet that no other tenant may use (its pool's, in no
 * other pool), so it can never touch another tenant's funds: the tenant has none on the chain,
 * or the intent names a wallet that is not one.
 */
export class NoExclusiveWalletError extends RelayerError<{
  tenantId: string;
  chainId: number;
  from?: string;
}> {
  constructor(tenantId: string, chainId: number, from?: string) {
    super(
      ErrorName.noExclusiveWallet,
      from === undefined
        ? `tenant ${tenantId} has no hot wallet of its own on chain ${chainId} to send a contract call from: an operator gives it a pool (relayer wallets pool …) that no other tenant's pool shares, and every other tenant a pool`
        : `${from} is not a hot wallet of tenant ${tenantId}'s own on chain ${chainId} (in its pool and in no other tenant's): a contract call is sent only from one`,
      { tenantId, chainId, ...(from !== undefined && { from }) },
    );
  }
}

import type { Intent } from './intent';

/** What an intent's workflow is started with, for the Web UI: found by these, shown with those. */
export interface IntentLabels {
  status: string;
  tenantId: string;
  chainId: number;
  /** Absent until the intent is signed when the request named no wallet. */
  from?: string;
  to: string;
  /** `native` or the token's address (absent in labels recorded before tokens: native). */
  asset?: string;
  /** In the asset's base units (wei for the native coin; the name stayed). */
  amountWei: string;
  batchId?: string;
  /** The caller's reference (domain/caller-reference.ts): searchable as PaymentReference. */
  reference?: string;
}

/** An intent's labels (pure: `intent` is the stored row, as activities and services read it). */
export const labelsOf = (intent: Intent, batchId?: string): IntentLabels => ({
  status: intent.status,
  tenantId: intent.tenantId,
  chainId: intent.chainId,
  ...(intent.from !== null && { from: intent.from }),
  to: intent.to,
  asset: intent.asset,
  amountWei: intent.amount.toString(),
  ...(batchId !== undefined && { batchId }),
  ...(intent.reference != null && { reference: intent.reference }),
});

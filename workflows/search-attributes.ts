import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { IntentLabels } from '../domain/intent-labels';

/** Shown in the Web UI and filterable there: `IntentStatus = "needs_review"`. */
export const intentStatusKey = defineSearchAttributeKey(
  'IntentStatus',
  SearchAttributeType.KEYWORD,
);
export const tenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const chainIdKey = defineSearchAttributeKey('ChainId', SearchAttributeType.INT);
/** The sending wallet's address: from the start when the request named it, else once signed. */
export const walletKey = defineSearchAttributeKey('Wallet', SearchAttributeType.KEYWORD);
/** On a batch and on each of its items' workflows. */
export const batchIdKey = defineSearchAttributeKey('BatchId', SearchAttributeType.KEYWORD);
/** What the intent pays in: `native`, or the token's address on its chain. */
export const assetKey = defineSearchAttributeKey('Asset', SearchAttributeType.KEYWORD);

/** The caller's `reference`: not for personal data (Temporal keeps it unencrypted). */
export const paymentReferenceKey = defineSearchAttributeKey(
  'PaymentReference',
  SearchAttributeType.KEYWORD,
);

/** Set by Temporal on each run a schedule starts: the occurrence's nominal time (not ours). */
export const scheduledStartTimeKey = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

export const relayerSearchAttributes = [
  intentStatusKey,
  tenantIdKey,
  chainIdKey,
  walletKey,
  batchIdKey,
  assetKey,
  paymentReferenceKey,
];

/** Search attributes of an intent's workflow; IntentStatus is kept current by the workflow. */
export const intentSearchAttributes = (intent: IntentLabels) => [
  { key: intentStatusKey, value: intent.status },
  { key: tenantIdKey, value: intent.tenantId },
  { key: chainIdKey, value: intent.chainId },
  { key: assetKey, value: intent.asset ?? 'native' },
  ...(intent.from === undefined ? [] : [{ key: walletKey, value: intent.from }]),
  ...(intent.batchId === undefined ? [] : [{ key: batchIdKey, value: intent.batchId }]),
  ...(intent.reference === undefined
    ? []
    : [{ key: paymentReferenceKey, value: intent.reference }]),
];

/** Shown on the workflow's page in the Web UI (not searchable). */
export const intentMemo = (intent: IntentLabels) => ({
  asset: intent.asset ?? 'native',
  amount: intent.amountWei,
  from: intent.from ?? 'chosen when signed',
  to: intent.to,
  chainId: intent.chainId,
});

import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Shown in the Web UI and filterable there: `IntentStatus = "needs_review"`. */
export const intentStatusKey = defineSearchAttributeKey(
  'IntentStatus',
  SearchAttributeType.KEYWORD,
);
export const tenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);

export const relayerSearchAttributes = [intentStatusKey, tenantIdKey];

import { workflowInfo, type ChildWorkflowOptions } from '@temporalio/workflow';
import type { AdmitBatchItemResult } from '../../activities/batch/admit-batch-item';
import type { ScheduledItem } from '../../activities/batch/load-batch-items';
import type { IntentTimings } from '../../domain/intent-timings';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import type { PaymentIntentInput } from '../payment-intent/input';
import {
  intentMemo,
  intentSearchAttributes,
  intentStatusKey,
  tenantIdKey,
} from '../search-attributes';

export type AdmittedItem = Extract<AdmitBatchItemResult, { kind: 'admitted' }>;

/** How a batch starts an admitted item's payment workflow, as its child. */
export function itemChildOptions(options: {
  item: ScheduledItem;
  admitted: AdmittedItem;
  batchId: string;
  timings: IntentTimings | undefined;
  /** The batch hands its wallets' turns on among its items (the wallet-turns patch). */
  walletTurns: boolean;
}): Omit<ChildWorkflowOptions, 'typeInfo'> & { args: [PaymentIntentInput] } {
  const { item, admitted, batchId, timings, walletTurns } = options;
  const { intentId, labels, validUntil, notBefore } = admitted;
  return {
    workflowId: paymentIntentWorkflowId(intentId),
    args: [
      {
        intentId,
        ...timings,
        ...(validUntil !== undefined && { validUntil }),
        ...(notBefore !== undefined && { notBefore }),
        batch: {
          workflowId: workflowInfo().workflowId,
          index: item.index,
          ...(walletTurns && item.wallet !== undefined && { walletTurn: { batchId } }),
        },
      },
    ],
    // A batch ending early (or terminated) must never cut a payment off halfway.
    parentClosePolicy: 'ABANDON',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    // Admissions recorded before items carried labels (older histories) name only the tenant.
    typedSearchAttributes: labels
      ? intentSearchAttributes(labels)
      : [
          { key: intentStatusKey, value: 'authorized' },
          { key: tenantIdKey, value: admitted.tenantId },
        ],
    ...(labels && { memo: intentMemo(labels) }),
  };
}

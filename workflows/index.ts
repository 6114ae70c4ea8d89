import './versioning';
export {
  paymentIntent,
  paymentIntent as walletTopUp,
  paymentIntentV2,
  paymentIntentV2 as walletTopUpV2,
  paymentIntentV2 as depositSweepV2,
} from './payment-intent';
export type { PaymentIntentInput } from './payment-intent';
export { intentProgressQuery } from './payment-intent/messages';
export type { PaymentIntentProgress } from './payment-intent/messages';
export { paymentBatch } from './payment-batch';
export type { PaymentBatchInput, PaymentBatchResult } from './payment-batch';
export { batchProgressQuery, cancelBatchSignal } from './payment-batch/signals';
export { resolveReviewUpdate } from './payment-intent/messages';
export { cancelUnminedUpdate, speedUpUpdate } from './payment-intent/messages';
export type { BatchProgress } from './payment-batch/signals';
export { depositScan, depositUpkeep, finalitySweep, orphanSweep, topUpSweep } from './sweeps';
export { scheduledPayment } from './scheduled-payment';
export type { ScheduledPaymentInput } from './scheduled-payment';
export { webhookDelivery, webhookEventsSignal } from './webhook-delivery';
export type { WebhookDeliveryInput } from './webhook-delivery';

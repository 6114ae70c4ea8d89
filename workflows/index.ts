export { paymentIntent, intentProgressQuery } from './payment-intent';
export type { PaymentIntentInput, PaymentIntentProgress } from './payment-intent';
export { paymentBatch } from './payment-batch';
export type { PaymentBatchInput, PaymentBatchResult } from './payment-batch';
export { batchProgressQuery, cancelBatchSignal } from './batch-signals';
export { resolveReviewUpdate } from './review-update';
export type { BatchProgress } from './batch-signals';

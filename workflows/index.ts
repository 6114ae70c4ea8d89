export { paymentIntent, intentProgressQuery } from './payment-intent';
export type { PaymentIntentInput, PaymentIntentProgress } from './payment-intent';

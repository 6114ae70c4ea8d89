import { paymentIntent, type PaymentIntentInput } from './payment-intent';
import type { PaymentIntentProgress } from './intent-progress';

/**
 * A top-up of a hot wallet from its chain's treasury (domain/custody.ts): the payment's own steps
 * — permit, settling, a hold of nothing, sign-persist-send, confirmations, replacements, review —
 * under a workflow type of its own, so operators find top-ups in the Web UI by their type.
 */
export async function walletTopUp(input: PaymentIntentInput): Promise<PaymentIntentProgress> {
  return paymentIntent(input);
}

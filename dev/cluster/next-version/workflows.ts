import { patched, upsertMemo } from '@temporalio/workflow';
import {
  paymentIntentV2 as currentPaymentIntent,
  type PaymentIntentInput,
} from '../../../workflows';

export * from '../../../workflows';

/**
 * The soak's changed workflow version, rolled out under traffic: a `patched()` branch at the
 * start of every new intent (a memo saying so), today's steps after it. Histories begun on the
 * current code replay through it unchanged; intents begun on it must not run on the old code,
 * which is what a rolling restart risks while both run.
 */
export async function paymentIntentV2(input: PaymentIntentInput) {
  if (patched('soak-next-version')) upsertMemo({ workflowVersion: 'soak-next' });
  return currentPaymentIntent(input);
}

import { patched, upsertMemo } from '@temporalio/workflow';
import {
  paymentIntentV2 as currentPaymentIntent,
  type PaymentIntentInput,
} from '../../../workflows';

export * from '../../../workflows';

/**
 * The soak's changed workflow version, rolled out under traffic by Worker Versioning (a build of
 * its own): a `patched()` branch at the start of every new intent (a memo saying so), today's
 * steps after it. Pinned intents never cross builds; the runs that do (auto-upgrade, or moved
 * off their build in a long wait) replay through it unchanged.
 */
export async function paymentIntentV2(input: PaymentIntentInput) {
  if (patched('soak-next-version')) upsertMemo({ workflowVersion: 'soak-next' });
  return currentPaymentIntent(input);
}

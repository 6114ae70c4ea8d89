// Types only from payment-outcome.ts: workflows import this file, and that one brings viem.
import { IntentStatus } from './intent';
import type { MinedOutcome } from './payment-outcome';

/**
 * The status an intent ends in once a transaction of it is mined deep enough: the one rule the
 * confirm step writes and the workflow enters.
 */
export function statusOfOutcome(state: MinedOutcome['state']): IntentStatus {
  switch (state) {
    case 'confirmed':
      return IntentStatus.confirmed;
    case 'mismatch':
      return IntentStatus.needsReview;
    case 'reverted':
    case 'cancelled':
    case 'moved-nothing':
      return IntentStatus.failed;
  }
}

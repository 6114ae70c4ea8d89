import type { PaymentIntentInput } from './input';
import { refuseIfExpired, sleepWithin } from './deadlines';
import { feeUnderCeiling } from './steps';

/**
 * A payment with its own fee ceiling waits, unsigned and holding no permit, while the chain's base
 * fee is above it: a look (an activity), then a timer, until it fits or its validUntil passes
 * (then it ends `expired`). Not on activity retries: the looks are spaced as
 * activities/fee-ceiling.ts says. A payment without one goes on at once.
 */
export async function waitForFeeUnderCeiling(input: PaymentIntentInput): Promise<void> {
  // Histories from before fee ceilings have none in their input: they replay unchanged.
  if (input.maxFeePerGas === undefined) return;
  const started = Date.now();
  for (;;) {
    const look = await feeUnderCeiling({
      intentId: input.intentId,
      waitedMs: Date.now() - started,
    });
    if (look.fits) return;
    await sleepWithin(look.retryAfterMs, input.validUntil);
    refuseIfExpired(input);
  }
}

import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import { RelayerError, RpcUnavailableError } from '../domain/errors';
import { ErrorName, nonRetryableErrorTypes } from '../domain/error-catalogue';
import { heldIntentWaits } from '../domain/reason-codes';
import type { ExpectedConditions } from './expected-conditions';

/**
 * The SDK names a failure after the thrown error's constructor, not its `name`. This makes the
 * failure type the error's declared name, carries its structured details, marks the kinds a
 * retry cannot fix as non-retryable even where a retry policy forgot to list them, and passes on
 * a wait the error asks for (the RPC pace) as the retry's delay. Expected conditions — a step
 * that finds its intent already closed (after a cancel), a send that waits for the RPC pace, a
 * provider's rate refusal (counted by the endpoint's budget in one line a minute,
 * throttle/rpc-budget.ts) — are the SDK's benign category, which keeps them out of its WARN log (a
 * stack per attempt) and its failure metrics; the first two are counted in `expected`, which
 * tells them once a minute.
 */
export class TypedFailures implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly expected: ExpectedConditions,
    private readonly step: string,
  ) {}

  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ) {
    try {
      return await next(input);
    } catch (error) {
      if (!(error instanceof RelayerError)) throw error;
      const expected = isExpected(error);
      if (expected && !isRateRefusal(error)) this.expected.note(error.name, this.step);
      throw ApplicationFailure.create({
        type: error.name,
        message: error.message,
        details: [error.details],
        nonRetryable: nonRetryableErrorTypes.includes(error.name),
        ...(error.retryAfterMs !== undefined && { nextRetryDelay: error.retryAfterMs }),
        ...(expected && { category: ApplicationFailureCategory.BENIGN }),
        cause: error,
      });
    }
  }
}

export const typedFailures =
  (expected: ExpectedConditions): ActivityInterceptorsFactory =>
  (context) => ({ inbound: new TypedFailures(expected, context.info.activityType) });

const isRateRefusal = (error: RelayerError): boolean =>
  error instanceof RpcUnavailableError && error.details.kind === 'rate_limited';

/**
 * No faults: conditions a retry waits out (each said on its intent or occurrence), and a cancel
 * that came after the payment was mined (its caller is told).
 */
const expectedTypes: readonly string[] = [
  ErrorName.intentClosed,
  ErrorName.notCancellable,
  ErrorName.sendPaced,
  ErrorName.occurrenceRefusedForNow,
  ...heldIntentWaits,
];

const isExpected = (error: RelayerError): boolean =>
  expectedTypes.includes(error.name) || isRateRefusal(error);

import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import { nonRetryableErrorTypes, RelayerError, RpcUnavailableError } from '../domain/errors';

/**
 * The SDK names a failure after the thrown error's constructor, not its `name`. This makes the
 * failure type the error's declared name, carries its structured details, marks the kinds a
 * retry cannot fix as non-retryable even where a retry policy forgot to list them, and passes on
 * a wait the error asks for (the RPC pace) as the retry's delay. A provider's rate refusal is an
 * expected condition, counted by the endpoint's budget in one line a minute
 * (throttle/rpc-budget.ts): the SDK's benign category keeps it out of the WARN log (a stack per
 * attempt) and the failure metrics.
 */
export class TypedFailures implements ActivityInboundCallsInterceptor {
  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ) {
    try {
      return await next(input);
    } catch (error) {
      if (!(error instanceof RelayerError)) throw error;
      throw ApplicationFailure.create({
        type: error.name,
        message: error.message,
        details: [error.details],
        nonRetryable: nonRetryableErrorTypes.includes(error.name),
        ...(error.retryAfterMs !== undefined && { nextRetryDelay: error.retryAfterMs }),
        ...(isRateRefusal(error) && { category: ApplicationFailureCategory.BENIGN }),
        cause: error,
      });
    }
  }
}

export const typedFailures: ActivityInterceptorsFactory = () => ({ inbound: new TypedFailures() });

const isRateRefusal = (error: RelayerError): boolean =>
  error instanceof RpcUnavailableError && error.details.kind === 'rate_limited';

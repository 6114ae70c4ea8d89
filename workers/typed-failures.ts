import { ApplicationFailure } from '@temporalio/common';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
  Next,
} from '@temporalio/worker';
import { nonRetryableErrorTypes, RelayerError } from '../domain/errors';

/**
 * The SDK names a failure after the thrown error's constructor, not its `name`. This makes the
 * failure type the error's declared name, carries its structured details, marks the kinds a
 * retry cannot fix as non-retryable even where a retry policy forgot to list them, and passes on
 * a wait the error asks for (the RPC pace) as the retry's delay.
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
        cause: error,
      });
    }
  }
}

export const typedFailures: ActivityInterceptorsFactory = () => ({ inbound: new TypedFailures() });

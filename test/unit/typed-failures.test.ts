import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { ActivityExecuteInput } from '@temporalio/worker';
import { ErrorType, RpcUnavailableError } from '../../domain/errors';
import { TypedFailures } from '../../workers/typed-failures';

const failureOf = async (error: Error): Promise<ApplicationFailure> => {
  const thrown = await new TypedFailures()
    .execute({} as ActivityExecuteInput, () => Promise.reject(error))
    .catch((failure: unknown) => failure);
  if (!(thrown instanceof ApplicationFailure)) throw new Error('not an ApplicationFailure');
  return thrown;
};

describe('typed activity failures', () => {
  it("marks a provider's rate refusal benign (retried, counted, not a WARN stack per attempt)", async () => {
    const refused = await failureOf(new RpcUnavailableError(1, 'rate_limited', new Error('429')));
    expect(refused).toMatchObject({
      type: ErrorType.rpcUnavailable,
      nonRetryable: false,
      category: ApplicationFailureCategory.BENIGN,
    });
    const timedOut = await failureOf(new RpcUnavailableError(1, 'timeout', new Error('slow')));
    expect(timedOut.category).toBeUndefined();
  });
});

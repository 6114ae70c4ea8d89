import { ApplicationFailure, ApplicationFailureCategory, type LogLevel } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityExecuteInput } from '@temporalio/worker';
import {
  IntentClosedError,
  InsufficientBalanceError,
  RpcUnavailableError,
  SendPacedError,
} from '../../domain/errors';
import { ErrorType } from '../../domain/error-catalogue';
import { TypedFailures, typedFailures } from '../../workers/typed-failures';

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

  it('tells an expected condition in one INFO line, benign; a payment error stays a WARN-worthy failure', async () => {
    const lines: [LogLevel, string][] = [];
    const logger = {
      log: (level: LogLevel, message: string) => void lines.push([level, message]),
      trace: () => undefined,
      debug: () => undefined,
      info: (message: string) => void lines.push(['INFO', message]),
      warn: (message: string) => void lines.push(['WARN', message]),
      error: (message: string) => void lines.push(['ERROR', message]),
    };
    const env = new MockActivityEnvironment({}, { interceptors: [typedFailures], logger });
    const failureIn = (error: Error): Promise<ApplicationFailure> =>
      env
        .run(() => Promise.reject(error))
        .then(
          () => {
            throw new Error('the activity did not fail');
          },
          (failure: unknown) => failure as ApplicationFailure,
        );

    const closed = await failureIn(new IntentClosedError('pi_1', 'cancelled'));
    expect(closed).toMatchObject({ type: ErrorType.intentClosed, nonRetryable: true });
    expect(closed.category).toBe(ApplicationFailureCategory.BENIGN);
    expect((await failureIn(new SendPacedError(250))).category).toBe(
      ApplicationFailureCategory.BENIGN,
    );
    expect(lines.filter(([level]) => level === 'INFO').map(([, message]) => message)).toEqual([
      'IntentClosed: intent pi_1 is cancelled: nothing left to do',
      expect.stringMatching(/^SendPaced: /),
    ]);

    const short = await failureIn(new InsufficientBalanceError('acme', 1n, 2n));
    expect(short.category).toBeUndefined();
  });
});

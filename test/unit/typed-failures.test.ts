import { ApplicationFailure, ApplicationFailureCategory, type LogLevel } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityExecuteInput } from '@temporalio/worker';
import {
  IntentClosedError,
  InsufficientBalanceError,
  NoFundedWalletError,
  NotCancellableError,
  RpcUnavailableError,
  SendPacedError,
} from '../../domain/errors';
import { ErrorName } from '../../domain/error-catalogue';
import { ExpectedConditions } from '../../workers/expected-conditions';
import { TypedFailures, typedFailures } from '../../workers/typed-failures';

const failureOf = async (error: Error): Promise<ApplicationFailure> => {
  const thrown = await new TypedFailures(new ExpectedConditions(), 'broadcast')
    .execute({} as ActivityExecuteInput, () => Promise.reject(error))
    .catch((failure: unknown) => failure);
  if (!(thrown instanceof ApplicationFailure)) throw new Error('not an ApplicationFailure');
  return thrown;
};

describe('typed activity failures', () => {
  it("marks a provider's rate refusal benign (retried, counted, not a WARN stack per attempt)", async () => {
    const refused = await failureOf(new RpcUnavailableError(1, 'rate_limited', new Error('429')));
    expect(refused).toMatchObject({
      type: ErrorName.rpcUnavailable,
      nonRetryable: false,
      category: ApplicationFailureCategory.BENIGN,
    });
    const timedOut = await failureOf(new RpcUnavailableError(1, 'timeout', new Error('slow')));
    expect(timedOut.category).toBeUndefined();
  });

  it('counts expected conditions by kind and step and tells them in one line a minute, benign; a payment error stays a WARN-worthy failure', async () => {
    const lines: string[] = [];
    const logger = {
      log: (_level: LogLevel, message: string) => void lines.push(message),
      trace: () => undefined,
      debug: () => undefined,
      info: (message: string) => void lines.push(message),
      warn: (message: string) => void lines.push(message),
      error: (message: string) => void lines.push(message),
    };
    const reports: Record<string, number>[] = [];
    const expected = new ExpectedConditions((counts) => reports.push(counts));
    const env = new MockActivityEnvironment(
      { activityType: 'broadcast' },
      { interceptors: [typedFailures(expected)], logger },
    );
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
    expect(closed).toMatchObject({ type: ErrorName.intentClosed, nonRetryable: true });
    expect(closed.category).toBe(ApplicationFailureCategory.BENIGN);
    for (let i = 0; i < 3; i++) {
      expect((await failureIn(new SendPacedError(250))).category).toBe(
        ApplicationFailureCategory.BENIGN,
      );
    }
    // Nothing said per occurrence; one report with the counts, then nothing until more come.
    expect(lines).toEqual([]);
    expect(reports).toEqual([]);
    expected.stop();
    expect(reports).toEqual([{ 'IntentClosed in broadcast': 1, 'SendPaced in broadcast': 3 }]);
    expected.report();
    expect(reports).toHaveLength(1);

    // A wallet to fund is waited for and said on the intent, not a WARN stack per retry.
    const unfunded = await failureIn(
      new NoFundedWalletError(1, 0n, {
        address: '0xt',
        alias: 'USDT',
        decimals: 6,
        amount: 250_000_000n,
      }),
    );
    expect(unfunded.category).toBe(ApplicationFailureCategory.BENIGN);
    expect(unfunded.message).toMatch(/holds 250 USDT on top of its transactions in flight/);
    expected.stop();
    expect(reports.at(-1)).toEqual({ 'NoFundedWallet in broadcast': 1 });

    // A cancel that came after the payment was mined: its caller is told; no fault to log.
    const mined = await failureIn(new NotCancellableError('pi_1', 'confirming', 'mined'));
    expect(mined).toMatchObject({ type: ErrorName.notCancellable, nonRetryable: true });
    expect(mined.category).toBe(ApplicationFailureCategory.BENIGN);
    expected.stop();

    const short = await failureIn(new InsufficientBalanceError('acme', 1n, 2n));
    expect(short.category).toBeUndefined();
    expected.stop();
  });
});

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  ActivityFailure,
  ApplicationFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import { ErrorName } from '../../domain/error-catalogue';
import {
  ReasonCode,
  reasonCodeOfError,
  reasonCodeOfFailureType,
  reasonCodes,
} from '../../domain/reason-codes';
import { reasonAtClose } from '../../domain/closing-reason';
import { reasonOfFailure } from '../../workflows/payment-intent/failures';

describe('reason codes', () => {
  it("are an error's name in snake case for a step that failed with it", () => {
    expect(reasonCodeOfError(ErrorName.noFundedWallet)).toBe('no_funded_wallet');
    expect(reasonCodeOfError(ErrorName.feeAboveCap)).toBe('fee_above_cap');
    expect(reasonCodeOfError(ErrorName.confirmationTimeout)).toBe('confirmation_timeout');
    // Each a word per capital, as the type derives them: two capitals in a row would read apart.
    expect(Object.values(ErrorName).filter((name) => !/^([A-Z][a-z0-9]+)+$/.test(name))).toEqual(
      [],
    );
    // No error's code is one of the outcome codes under another meaning.
    const outcomes = new Set<string>(Object.values(ReasonCode));
    expect(
      Object.values(ErrorName).filter((type) => outcomes.has(reasonCodeOfError(type))),
    ).toEqual([ErrorName.walletBlocked]);
  });

  it('are a closed set: a failure of no relayer error is internal', () => {
    expect(reasonCodeOfFailureType('TypeError')).toBe(ReasonCode.internal);
    expect(reasonCodeOfFailureType('Error')).toBe(ReasonCode.internal);
    expect(reasonCodeOfFailureType(undefined)).toBe(ReasonCode.internal);
    expect(reasonCodeOfFailureType('toString')).toBe(ReasonCode.internal);
    expect(reasonCodes).not.toContain('type_error');
    expect(reasonCodes).toEqual(expect.arrayContaining(['pool_full', ReasonCode.legacyUnknown]));
  });

  it("are what the workflow records for a step's failure", () => {
    const stepFailed = (cause: Error, retryState: RetryState = RetryState.NON_RETRYABLE_FAILURE) =>
      new ActivityFailure('failed', 'broadcast', '7', retryState, 'worker', cause);
    // An activity's TypeError reaches the workflow as an ApplicationFailure of type TypeError.
    const bug = ApplicationFailure.create({ type: 'TypeError', message: 'x is undefined' });
    expect(reasonOfFailure(stepFailed(bug))).toEqual({
      code: ReasonCode.internal,
      text: 'TypeError: x is undefined',
    });
    const refused = ApplicationFailure.nonRetryable('no', ErrorName.transferRejected);
    expect(reasonOfFailure(stepFailed(refused)).code).toBe('transfer_rejected');
    expect(reasonOfFailure(stepFailed(refused, RetryState.TIMEOUT)).code).toBe(
      ReasonCode.stepTimedOut,
    );
    expect(reasonOfFailure(new TypeError('in the workflow')).code).toBe(ReasonCode.internal);
  });

  it('name the condition a waiting step still met when its window closed, even during an attempt', () => {
    const waited = ApplicationFailure.retryable(
      'no hot wallet holds 250 USDT',
      ErrorName.noFundedWallet,
    );
    const windowClosed = (cause?: Error) => {
      const timeout = new TimeoutFailure(
        'activity timeout',
        undefined,
        TimeoutType.SCHEDULE_TO_CLOSE,
      );
      if (cause) Object.assign(timeout, { cause });
      return timeout;
    };
    for (const retryState of [RetryState.TIMEOUT, RetryState.NON_RETRYABLE_FAILURE]) {
      const failure = new ActivityFailure(
        'failed',
        'broadcast',
        '7',
        retryState,
        'w',
        windowClosed(waited),
      );
      expect(reasonOfFailure(failure)).toEqual({
        code: 'no_funded_wallet',
        text: 'broadcast still waiting when its time ran out: NoFundedWallet: no hot wallet holds 250 USDT',
      });
    }
    // A window that closed on the first attempt: no condition to name.
    const first = new ActivityFailure(
      'failed',
      'broadcast',
      '7',
      RetryState.TIMEOUT,
      'w',
      windowClosed(),
    );
    expect(reasonOfFailure(first).code).toBe(ReasonCode.stepTimedOut);
  });

  it('close a step that ran out of time with the wait the intent said, whatever its last error', () => {
    const timedOut = {
      code: ReasonCode.stepTimedOut,
      text: 'broadcast still failing when its time ran out; last error internal: RPC timeout',
    };
    const waiting = { code: reasonCodeOfError(ErrorName.noFundedWallet), text: 'no hot wallet' };
    expect(reasonAtClose(waiting, timedOut)).toEqual({
      code: 'no_funded_wallet',
      text: `still waiting when its time ran out: no hot wallet (${timedOut.text})`,
    });
    // Nothing waited for, or a reason that is no wait: the closing reason as it came.
    expect(reasonAtClose(null, timedOut)).toBe(timedOut);
    expect(reasonAtClose({ code: ReasonCode.reverted, text: 'reverted' }, timedOut)).toBe(timedOut);
    // An end other than running out of time keeps its own reason.
    const refused = { code: reasonCodeOfError(ErrorName.transferRejected), text: 'refused' };
    expect(reasonAtClose(waiting, refused)).toBe(refused);
  });

  it('are each named in docs/api.md', () => {
    const docs = readFileSync(resolve(__dirname, '../../docs/api.md'), 'utf8');
    const outcomeCodes = [...Object.values(ReasonCode), reasonCodeOfError('ConfirmationTimeout')];
    expect(outcomeCodes.filter((code) => !docs.includes(`\`${code}\``))).toEqual([]);
  });
});

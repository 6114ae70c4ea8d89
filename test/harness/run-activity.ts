import type { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { ExpectedConditions } from '../../workers/expected-conditions';
import { typedFailures } from '../../workers/typed-failures';

/** Runs an activity the way a worker would: in an activity context, failures typed. */
export const runActivity = <P, R>(
  activity: (parameters: P) => Promise<R>,
  parameters: P,
): Promise<R> =>
  new MockActivityEnvironment(undefined, {
    interceptors: [typedFailures(new ExpectedConditions())],
    logger: new DefaultLogger('ERROR'),
  }).run(activity, parameters);

/** The failure type an activity failed with (and fails the test if it did not fail). */
export async function failureType(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as ApplicationFailure).type ?? '(untyped)';
  }
  throw new Error('expected the activity to fail');
}

import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { RelayerError } from '../domain/errors';
import type { ErrorName } from '../domain/error-catalogue';

/**
 * The relayer error an update to an intent's workflow failed with (refused by its validator or
 * by the activity applying it), as the API knows them; anything else as it is.
 */
export function relayerErrorOf(error: unknown): unknown {
  const failure = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
  if (!(failure instanceof ApplicationFailure) || !failure.type) return error;
  const details = (failure.details?.[0] ?? {}) as Record<string, unknown>;
  return new RelayerError(failure.type as ErrorName, failure.message, details, { cause: error });
}

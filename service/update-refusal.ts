import {
  isGrpcDeadlineError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { RelayerError, WorkflowUnansweredError } from '../domain/errors';
import type { ErrorName } from '../domain/error-catalogue';

/** How long a request waits for the intent's workflow to take it (a worker must run it). */
const workflowAnswerMs = 20_000;

/**
 * Asks an intent's running workflow (an update) and answers with its outcome; its refusal comes
 * back as the relayer error it is, a workflow that ended as `gone()`, no answer in time as
 * WorkflowUnanswered.
 */
export async function askIntentWorkflow<T>(
  client: Client,
  intentId: string,
  ask: () => Promise<T>,
  gone: () => Error,
): Promise<T> {
  try {
    return await client.connection.withDeadline(Date.now() + workflowAnswerMs, ask);
  } catch (refusal) {
    if (refusal instanceof WorkflowNotFoundError) throw gone();
    if (isGrpcDeadlineError(refusal)) throw new WorkflowUnansweredError(intentId, workflowAnswerMs);
    throw relayerErrorOf(refusal);
  }
}

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

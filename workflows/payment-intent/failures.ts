import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  TimeoutFailure,
} from '@temporalio/workflow';
import {
  isHeldIntentWait,
  ReasonCode,
  reasonCodeOfFailureType,
  type Reason,
} from '../../domain/reason-codes';

/** Why a step's failure or a cancellation ended the intent: its code and words. */
export function reasonOfFailure(error: unknown): Reason {
  if (isCancellation(error))
    return { code: ReasonCode.workflowCancelled, text: 'workflow cancelled' };
  if (error instanceof ActivityFailure) {
    // A window that closed while an attempt ran ends in a TimeoutFailure; the attempt before it
    // failed with its cause (the condition it waited for), when there was one.
    const timedOut = error.retryState === 'TIMEOUT' || error.cause instanceof TimeoutFailure;
    const last = reasonOfFailure(
      error.cause instanceof TimeoutFailure ? (error.cause.cause ?? error.cause) : error.cause,
    );
    if (!timedOut) return last;
    // A step that waited for a condition (a funded wallet) ends with that condition's code.
    return isHeldIntentWait(last.code)
      ? {
          code: last.code,
          text: `${error.activityType} still waiting when its time ran out: ${last.text}`,
        }
      : {
          code: ReasonCode.stepTimedOut,
          text: `${error.activityType} still failing when its time ran out; last error ${last.text}`,
        };
  }
  if (error instanceof ApplicationFailure) {
    return {
      code: reasonCodeOfFailureType(error.type),
      text: `${error.type}: ${error.message}`,
    };
  }
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { code: ReasonCode.internal, text };
}

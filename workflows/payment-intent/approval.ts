import { ActivityFailure, ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import type { ApprovalExpiry, ApprovalOutcome, ApprovalRequest } from '../../domain/approval';
import { ErrorType, notAwaitingApprovalMessage } from '../../domain/error-catalogue';
import type { IntentStatus } from '../../domain/intent';
import { defaultApprovalTtlMs } from '../../domain/intent-timings';
import type { PaymentIntentProgress } from '../intent-progress';
import { decideApprovalUpdate } from '../approval-update';
import type { PaymentIntentInput } from './input';
import { decideApproval } from './steps';

/**
 * The wait of an intent awaiting approval (its input says so), before its permit
 * and with nothing held: a second key's decision arrives as the `decideApproval` update and is
 * applied by an activity (four eyes checked there, against the key that submitted it); none
 * within the TTL, the relayer rejects it. Undefined for an intent that needs no approval.
 */
export function approvalGate(input: PaymentIntentInput, progress: PaymentIntentProgress) {
  const { intentId, approvalTtlMs = defaultApprovalTtlMs } = input;
  if (!input.awaitingApproval) return undefined;
  /** Where the decision left the intent; undefined while it waits. */
  let decided: IntentStatus | undefined;
  /** A decision's activity is running. */
  let applying = false;
  const apply = async (decision: ApprovalRequest | ApprovalExpiry): Promise<ApprovalOutcome> => {
    applying = true;
    try {
      const outcome = await decideApproval({ intentId, ...decision });
      decided = outcome.status;
      return outcome;
    } catch (error) {
      // The caller gets the refusal itself (ApprovalRefused, NotAwaitingApproval), not its wrapping.
      throw error instanceof ActivityFailure && error.cause ? error.cause : error;
    } finally {
      applying = false;
    }
  };
  setHandler<ApprovalOutcome, [ApprovalRequest], typeof decideApprovalUpdate>(
    decideApprovalUpdate,
    (request) => apply(request),
    {
      validator: () => {
        if (!applying && decided === undefined) return;
        throw ApplicationFailure.create({
          type: ErrorType.notAwaitingApproval,
          message: notAwaitingApprovalMessage(intentId, progress.status),
          details: [{ intentId, status: progress.status }],
          nonRetryable: true,
        });
      },
    },
  );
  return {
    /** Waits for the decision (or the TTL's rejection): the status it left the intent in. */
    async decision(): Promise<IntentStatus> {
      const inTime = await condition(() => decided !== undefined, approvalTtlMs);
      if (!inTime) {
        // A decision being applied as the time runs out goes first.
        await condition(() => !applying);
        if (decided === undefined) await apply({ decision: 'expire', ttlMs: approvalTtlMs });
      }
      return decided!;
    },
  };
}

export type ApprovalGate = NonNullable<ReturnType<typeof approvalGate>>;

import { ActivityFailure, ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import type {
  ApprovalExpiry,
  ApprovalOutcome,
  ApprovalRequest,
  ApprovalSubject,
} from '../domain/approval';
import { ErrorName, notAwaitingApprovalMessage } from '../domain/error-catalogue';
import { decideApprovalUpdate } from './payment-intent/messages';

export interface ApprovalWait<S extends string> {
  subject: ApprovalSubject;
  ttlMs: number;
  /** Where the subject stands now, for a refusal's words (default: what the decision left). */
  statusNow?(): string;
  /**
   * Applies a decision (an activity: four eyes checked there) and says where it left the subject.
   */
  apply(decision: ApprovalRequest | ApprovalExpiry): Promise<ApprovalOutcome<S>>;
}

/**
 * A workflow's wait for a second key's decision (an intent's, or a batch's once for all its
 * items): the decision arrives as the `decideApproval` update and is applied by an activity; none
 * within the TTL, the relayer rejects it. A decision for a subject no longer waiting (or already
 * applying one) is refused by the validator, before it reaches the history.
 */
export function approvalGate<S extends string>(wait: ApprovalWait<S>) {
  /** Where the decision left the subject; undefined while it waits. */
  let decided: S | undefined;
  /** A decision's activity is running. */
  let applying = false;
  /** No one decided within the TTL: the relayer rejected it. */
  let expired = false;
  const apply = async (decision: ApprovalRequest | ApprovalExpiry): Promise<ApprovalOutcome<S>> => {
    applying = true;
    try {
      const outcome = await wait.apply(decision);
      decided = outcome.status;
      return outcome;
    } catch (error) {
      // The caller gets the refusal itself (ApprovalRefused, NotAwaitingApproval), not its
      // wrapping.
      throw error instanceof ActivityFailure && error.cause ? error.cause : error;
    } finally {
      applying = false;
    }
  };
  const statusNow = () => wait.statusNow?.() ?? decided ?? 'awaiting_approval';
  setHandler<ApprovalOutcome<string>, [ApprovalRequest], typeof decideApprovalUpdate>(
    decideApprovalUpdate,
    (request) => apply(request),
    {
      validator: () => {
        if (!applying && decided === undefined) return;
        throw ApplicationFailure.create({
          type: ErrorName.notAwaitingApproval,
          message: notAwaitingApprovalMessage(wait.subject, statusNow()),
          details: [{ [`${wait.subject.kind}Id`]: wait.subject.id, status: statusNow() }],
          nonRetryable: true,
        });
      },
    },
  );
  return {
    /** Waits for the decision (or the TTL's rejection): the status it left the subject in. */
    async decision(): Promise<S> {
      const inTime = await condition(() => decided !== undefined, wait.ttlMs);
      if (!inTime) {
        // A decision being applied as the time runs out goes first.
        await condition(() => !applying);
        if (decided === undefined) {
          expired = true;
          await apply({ decision: 'expire', ttlMs: wait.ttlMs });
        }
      }
      return decided!;
    },
    /** Whether the decision was the TTL's rejection. */
    expired: () => expired,
  };
}

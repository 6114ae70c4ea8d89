import type { IntentStatus } from './intent';

/**
 * A second person's decision on an intent (or a batch) awaiting approval (four eyes). Pure: the
 * API, the workflow's update handler and the deciding activity all speak it.
 */
export type ApprovalDecision = 'approve' | 'reject';

export interface ApprovalRequest {
  decision: ApprovalDecision;
  /** Who decides, as the audit log names them. */
  actor: string;
  /** The deciding API key: never the one that submitted the intent. */
  keyId: string;
  note?: string;
}

/** The relayer's own decision when no one approved in time. */
export interface ApprovalExpiry {
  decision: 'expire';
  ttlMs: number;
}

/**
 * Where the decision left what was decided: an intent `authorized` (approved), `rejected`, or
 * already ended; a batch `running` (approved) or `rejected`.
 */
export interface ApprovalOutcome<S extends string = IntentStatus> {
  status: S;
}

/** What awaits a decision: one intent, or a batch once for all its items. */
export interface ApprovalSubject {
  kind: 'intent' | 'batch';
  id: string;
}

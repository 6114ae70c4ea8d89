import type { IntentStatus } from './intent';

/**
 * A second person's decision on an intent awaiting approval (four eyes). Pure: the API, the
 * workflow's update handler and the deciding activity all speak it.
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

/** Where the decision left the intent: `authorized` (approved), `rejected`, or already ended. */
export interface ApprovalOutcome {
  status: IntentStatus;
}

/**
 * How long an intent's chain steps may take before a person is asked to look: set per process
 * (SEND_WINDOW_MS, CONFIRM_TIMEOUT_MS) and recorded in each intent's workflow input as it starts,
 * so an intent keeps the rule it started under through restarts and deploys.
 */
export interface IntentTimings {
  /** How long a send is retried with the same signed bytes before the intent waits in review. */
  sendWindowMs?: number;
  /** How long a sent transaction may stay unconfirmed before the intent waits in review. */
  confirmTimeoutMs?: number;
  /** How long an intent awaiting approval waits for a second key before it ends `rejected`. */
  approvalTtlMs?: number;
}

/** The seed's review rule: five minutes without the node taking the transaction. */
export const defaultSendWindowMs = 5 * 60_000;

export const defaultConfirmTimeoutMs = 30 * 60_000;

/** Three days for a second person to approve a payment above its tenant's threshold. */
export const defaultApprovalTtlMs = 72 * 3600_000;

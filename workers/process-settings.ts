import type { IntentTimings } from '../domain/intent-timings';
import type { AdmissionLimits } from '../operations/admission';
import { secretBox } from '../webhooks/secret-box';
import type { WebhookSettings } from '../webhooks/settings';
import type { RelayerConfig } from './config/load';

// The process's settings as each part it starts takes them.

/** How this process signs and sends webhooks and registers endpoints, from its settings. */
export const webhookSettings = (config: RelayerConfig): WebhookSettings => ({
  ...(config.webhookSecretsKey && { box: secretBox(config.webhookSecretsKey) }),
  policy: { allowLoopback: config.webhookAllowLoopback },
  timeoutMs: config.webhookTimeoutMs,
  rotationGraceMs: config.webhookRotationGraceMs,
});

/** What the intents this process starts are recorded with (SEND_WINDOW_MS, CONFIRM_TIMEOUT_MS). */
export const intentTimings = (config: RelayerConfig): IntentTimings => ({
  sendWindowMs: config.sendWindowMs,
  confirmTimeoutMs: config.confirmTimeoutMs,
  approvalTtlMs: config.approvalTtlMs,
});

export const admissionLimits = (config: RelayerConfig): AdmissionLimits => ({
  tenantMaxInFlight: config.tenantMaxInFlight,
  maxAwaitingApproval: config.approvalMaxWaiting,
  backlogLimit: config.backlogLimit,
  perSecond: config.perSecond,
  idempotencyKeyTtlMs: config.idempotencyKeyTtlHours * 3_600_000,
});

import { WebhooksNotConfiguredError } from '../domain/errors';
import type { EndpointPolicy } from '../domain/webhooks';
import type { SecretBox } from './secret-box';

/** How a process signs and sends webhooks, and registers endpoints (the WEBHOOK_* settings). */
export interface WebhookSettings {
  /** None without WEBHOOK_SECRETS_KEY: nothing can be signed, no endpoint registered. */
  box?: SecretBox;
  policy: EndpointPolicy;
  /** How long one attempt waits for the receiver. */
  timeoutMs: number;
  /** How long the old secret keeps signing after a rotation. */
  rotationGraceMs: number;
}

/** Settings that can sign: a process given WEBHOOK_SECRETS_KEY. */
export type SigningWebhookSettings = WebhookSettings & { box: SecretBox };

/** The settings if this process can sign webhooks; WebhooksNotConfigured otherwise. */
export function signingSettings(settings: WebhookSettings | undefined): SigningWebhookSettings {
  const box = settings?.box;
  if (!settings || !box) throw new WebhooksNotConfiguredError();
  return { ...settings, box };
}

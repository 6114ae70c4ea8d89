import { secretBox } from '../../webhooks/secret-box';
import type { WebhookSettings } from '../../webhooks/settings';

/** Webhook settings for registering endpoints in a test: a fixed key, loopback receivers allowed. */
export const testWebhookSettings = (): WebhookSettings => ({
  box: secretBox(Buffer.alloc(32, 7)),
  policy: { allowLoopback: true },
  timeoutMs: 1000,
  rotationGraceMs: 0,
});

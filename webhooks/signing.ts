import { Webhook } from 'standardwebhooks';

/**
 * The `webhook-signature` header of one attempt (the Standard Webhooks scheme, signed by its
 * reference library): `v1,<base64 HMAC-SHA256 of id.timestamp.body>` for each secret, space
 * separated, so a receiver holding either the new or the old secret verifies during a rotation.
 */
export function signatureHeader(
  eventId: string,
  at: Date,
  body: string,
  secrets: readonly string[],
): string {
  return secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' ');
}

/** The headers of one attempt: the same id every time, the time of this attempt. */
export function webhookHeaders(
  eventId: string,
  at: Date,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatureHeader(eventId, at, body, secrets),
  };
}

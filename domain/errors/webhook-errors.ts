import { RelayerError } from './relayer-error';
import { ErrorName } from '../error-catalogue';

// Webhook endpoints and deliveries: a receiver not answering, gone or disabled, webhooks off, a
// URL refused.

/** One delivery attempt did not get a 2xx: retried with backoff, the same webhook-id each time. */
export class WebhookUndeliveredError extends RelayerError<{
  eventId: string;
  endpointId: string;
  statusCode?: number;
}> {
  constructor(eventId: string, endpointId: string, why: string, statusCode?: number) {
    super(ErrorName.webhookUndelivered, `event ${eventId} not delivered to ${endpointId}: ${why}`, {
      eventId,
      endpointId,
      ...(statusCode !== undefined && { statusCode }),
    });
  }
}

/** The receiver answered 410 Gone: the endpoint is disabled, nothing more is sent to it. */
export class WebhookEndpointGoneError extends RelayerError<{ endpointId: string }> {
  constructor(endpointId: string) {
    super(
      ErrorName.webhookEndpointGone,
      `endpoint ${endpointId} answered 410 Gone: it is disabled (enable it again to resume)`,
      { endpointId },
    );
  }
}

/** The endpoint is disabled: its deliveries wait until it is enabled again. */
export class WebhookEndpointDisabledError extends RelayerError<{ endpointId: string }> {
  constructor(endpointId: string) {
    super(ErrorName.webhookEndpointDisabled, `endpoint ${endpointId} is disabled`, { endpointId });
  }
}

/** No WEBHOOK_SECRETS_KEY in this process: secrets can be neither sealed nor opened. */
export class WebhooksNotConfiguredError extends RelayerError<Record<string, never>> {
  constructor() {
    super(
      ErrorName.webhooksNotConfigured,
      'webhooks are off: set WEBHOOK_SECRETS_KEY (32 bytes, base64; the same in every process)',
      {},
    );
  }
}

/** An endpoint URL webhooks may not go to: not https, or an address that is not public. */
export class WebhookUrlRefusedError extends RelayerError<{ url: string; why: string }> {
  constructor(url: string, why: string) {
    super(ErrorName.webhookUrlRefused, `webhook endpoint ${url} refused: ${why}`, { url, why });
  }
}

export class WebhookEndpointNotFoundError extends RelayerError<{ endpointId: string }> {
  constructor(endpointId: string) {
    super(ErrorName.webhookEndpointNotFound, `no webhook endpoint ${endpointId}`, { endpointId });
  }
}

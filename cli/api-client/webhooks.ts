import type { WebhookDeliveryView, WebhookEndpointView } from '../../api/schemas/webhooks';
import { queryString, type ApiTransport } from '../api-transport';

/** Webhook endpoints and their deliveries (api/routes/webhooks.ts). */
export const webhookRoutes = {
  async webhookEndpoints(this: ApiTransport): Promise<WebhookEndpointView[]> {
    return (await this.call<{ endpoints: WebhookEndpointView[] }>('GET', '/v1/webhooks/endpoints'))
      .body.endpoints;
  },

  async addWebhookEndpoint(
    this: ApiTransport,
    body: {
      url: string;
      eventTypes?: string[];
    },
  ): Promise<WebhookEndpointView & { secret: string }> {
    return (
      await this.call<WebhookEndpointView & { secret: string }>('POST', '/v1/webhooks/endpoints', {
        body,
      })
    ).body;
  },

  async webhookEndpointAction(
    this: ApiTransport,
    id: string,
    action: 'rotate-secret' | 'enable' | 'disable',
  ): Promise<Record<string, unknown>> {
    const path = `/v1/webhooks/endpoints/${encodeURIComponent(id)}/${action}`;
    return (await this.call<Record<string, unknown>>('POST', path)).body;
  },

  async webhookDeliveries(
    this: ApiTransport,
    id: string,
    status?: string,
  ): Promise<WebhookDeliveryView[]> {
    const path = `/v1/webhooks/endpoints/${encodeURIComponent(id)}/deliveries${queryString({ status })}`;
    return (await this.call<{ deliveries: WebhookDeliveryView[] }>('GET', path)).body.deliveries;
  },

  async redeliverWebhook(this: ApiTransport, id: string, eventId: string): Promise<void> {
    const path = `/v1/webhooks/endpoints/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(eventId)}/redeliver`;
    await this.call('POST', path);
  },
};

import { z } from 'zod';
import type { DeliveryRow } from '../../service/webhooks';

/** A tenant's webhook endpoints and their delivery log. */

export const newEndpointBodySchema = z.strictObject({
  url: z
    .string()
    .max(2000)
    .describe('https only (http to loopback only where WEBHOOK_ALLOW_LOOPBACK)'),
  eventTypes: z
    .array(z.string().max(64))
    .max(20)
    .optional()
    .describe('intent.<status> types, or "*" (the default): every one'),
});

export const endpointSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    url: z.string(),
    eventTypes: z.array(z.string()),
    status: z.string().describe('active, or disabled (a 410, or by hand)'),
    disabledReason: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpointView = z.infer<typeof endpointSchema>;

export const registeredEndpointSchema = endpointSchema
  .extend({ secret: z.string().describe('whsec_…: shown this once, stored encrypted') })
  .meta({ id: 'RegisteredWebhookEndpoint' });

export const endpointsSchema = z.object({ endpoints: z.array(endpointSchema) });

export const endpointParamsSchema = z.strictObject({ id: z.string().min(1).max(64) });

export const deliveriesQuerySchema = z.strictObject({
  status: z.enum(['pending', 'delivered', 'dead']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

const deliverySchema = z.object({
  eventId: z.string().describe('the webhook-id of every attempt'),
  intentId: z.string(),
  sequence: z.number().int().describe("the event's place among its intent's events"),
  type: z.string(),
  status: z.string().describe('pending, delivered, or dead (its retries ran out)'),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z
    .string()
    .nullable()
    .describe("a pending delivery: when it is tried next (after its intent's earlier events)"),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});
export type WebhookDeliveryView = z.infer<typeof deliverySchema>;

export const deliveriesSchema = z
  .object({ deliveries: z.array(deliverySchema) })
  .meta({ id: 'WebhookDeliveries' });

export const deliveryView = (row: DeliveryRow): WebhookDeliveryView => ({
  ...row,
  nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
  deliveredAt: row.deliveredAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
});

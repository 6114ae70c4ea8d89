import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { z } from 'zod';
import {
  deliveriesFor,
  endpointsFor,
  redeliverEvent,
  registerEndpoint,
  rotateSecret,
  setEndpointEnabled,
} from '../../service/webhooks';
import type { ApiContext } from '../api-context';
import { callerOf } from '../auth';
import { errorResponses } from '../error-responses';
import { noBodySchema } from '../schemas/common';
import {
  deliveriesQuerySchema,
  deliveriesSchema,
  deliveryView,
  endpointParamsSchema,
  endpointSchema,
  endpointsSchema,
  newEndpointBodySchema,
  registeredEndpointSchema,
} from '../schemas/webhooks';

/**
 * Webhook endpoints: a tenant registers where it is told of its intents' state changes (Standard
 * Webhooks); tenants and operators read the delivery log, the dead letters, and redeliver.
 */
export const webhookRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.post('/v1/webhooks/endpoints', {
    config: { scope: ApiScope.webhooksAdmin },
    schema: {
      summary:
        "Register a webhook endpoint: a tenant key's is told of its intents, an operator key's of the relayer's wallets and top-ups; its secret is in the answer, once",
      body: newEndpointBodySchema,
      response: { 201: registeredEndpointSchema, ...errorResponses },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await registerEndpoint(deps, callerOf(request), request.body)),
  });

  app.get('/v1/webhooks/endpoints', {
    config: { scope: ApiScope.webhooksAdmin },
    schema: {
      summary: 'Webhook endpoints (a tenant sees its own)',
      response: { 200: endpointsSchema, ...errorResponses },
    },
    handler: async (request) => ({ endpoints: await endpointsFor(deps, callerOf(request)) }),
  });

  app.post('/v1/webhooks/endpoints/:id/rotate-secret', {
    config: { scope: ApiScope.webhooksAdmin },
    schema: {
      body: noBodySchema,
      summary: 'A new secret, in the answer once; the old one keeps signing for the grace period',
      params: endpointParamsSchema,
      response: {
        200: z.object({ secret: z.string(), previousValidUntil: z.string() }),
        ...errorResponses,
      },
    },
    handler: async (request) => rotateSecret(deps, callerOf(request), request.params.id),
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post(`/v1/webhooks/endpoints/:id/${action}`, {
      config: { scope: ApiScope.webhooksAdmin },
      schema: {
        body: noBodySchema,
        summary: enabled
          ? 'Enable an endpoint again (after a 410): its waiting deliveries resume'
          : 'Disable an endpoint: its deliveries wait',
        params: endpointParamsSchema,
        response: { 200: endpointSchema, ...errorResponses },
      },
      handler: async (request) =>
        setEndpointEnabled(deps, callerOf(request), request.params.id, enabled),
    });
  }

  app.get('/v1/webhooks/endpoints/:id/deliveries', {
    config: { scope: ApiScope.webhooksAdmin },
    schema: {
      summary: 'The delivery log, newest first (status=dead: the dead-letter list)',
      params: endpointParamsSchema,
      querystring: deliveriesQuerySchema,
      response: { 200: deliveriesSchema, ...errorResponses },
    },
    handler: async (request) => ({
      deliveries: (
        await deliveriesFor(deps, callerOf(request), request.params.id, request.query)
      ).map(deliveryView),
    }),
  });

  app.post('/v1/webhooks/endpoints/:id/deliveries/:eventId/redeliver', {
    config: { scope: ApiScope.webhooksAdmin },
    schema: {
      body: noBodySchema,
      summary: 'Send an event to the endpoint again (the same webhook-id)',
      params: endpointParamsSchema.extend({ eventId: z.string().min(1).max(100) }),
      response: { 204: z.null(), ...errorResponses },
    },
    handler: async (request, reply) => {
      await redeliverEvent(deps, callerOf(request), request.params.id, request.params.eventId);
      return reply.code(204).send(null);
    },
  });
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { RelayerClosedError } from '../../domain/errors';
import { intentBodySchema } from '../../domain/intent-request';
import { cancelIntent } from '../../service/cancel-intent';
import { redactIntent } from '../../service/redact-intent';
import { speedUpIntent } from '../../service/speed-up';
import { submitIntentBody } from '../../service/submit-intent';
import { callerOf, operatorOf, tenantOf } from '../auth';
import type { ApiContext } from '../api-context';
import { errorResponses } from '../error-responses';
import { idempotencyHeadersSchema, idParamsSchema } from '../schemas/common';
import { noteBodySchema, speedUpBodySchema } from '../schemas/review';
import { intentSchema, intentView } from '../schemas/intents';

/** A tenant's own intents: submit, cancel and speed up; an operator's redact. */
export const intentRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, context) => {
  const { deps } = context;

  app.post('/v1/intents', {
    config: { scope: ApiScope.intentsWrite },
    schema: {
      summary: 'Submit a payment intent (tenant key)',
      headers: idempotencyHeadersSchema,
      body: intentBodySchema,
      response: { 200: intentSchema, 202: intentSchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      const tenant = tenantOf(request);
      if (context.isClosing()) throw new RelayerClosedError();
      const submitted = await submitIntentBody(deps, tenant.tenantId, request.body, {
        idempotencyKey: request.headers['idempotency-key'],
        submittedBy: tenant.keyId,
      });
      if (submitted.created) context.metrics.recordSubmitted();
      return reply.code(submitted.created ? 202 : 200).send(intentView(submitted.intent));
    },
  });

  app.post('/v1/intents/:id/cancel', {
    config: { scope: ApiScope.intentsWrite },
    schema: {
      body: noteBodySchema,
      summary:
        'Cancel an intent: unsigned, it ends cancelled (200); sent but not mined, a zero-value transfer takes its nonce back (202)',
      params: idParamsSchema,
      response: { 200: intentSchema, 202: intentSchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      const intent = await cancelIntent(
        deps,
        callerOf(request),
        request.params.id,
        request.body?.note,
      );
      // 202: the cancel is signed and sent; which transaction the chain mines decides the end.
      return reply.code(intent.status === 'cancelled' ? 200 : 202).send(intentView(intent));
    },
  });

  app.post('/v1/intents/:id/speed-up', {
    config: { scope: ApiScope.intentsWrite },
    schema: {
      body: speedUpBodySchema,
      summary:
        'Speed up a payment sent but not mined: signed again at its nonce with a higher bid (202)',
      params: idParamsSchema,
      response: { 202: intentSchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      const intent = await speedUpIntent(
        deps,
        callerOf(request),
        request.params.id,
        request.body ?? {},
      );
      // 202: the replacement is signed and sent; which transaction the chain mines decides.
      return reply.code(202).send(intentView(intent));
    },
  });

  app.post('/v1/intents/:id/redact', {
    config: { scope: ApiScope.redact },
    schema: {
      body: noteBodySchema,
      summary:
        "Erase an ended intent's reference and metadata everywhere the relayer keeps them (operator key with the redact scope)",
      params: idParamsSchema,
      response: { 200: intentSchema, ...errorResponses },
    },
    handler: async (request) =>
      intentView(
        await redactIntent(deps, operatorOf(request), request.params.id, request.body?.note),
      ),
  });
};

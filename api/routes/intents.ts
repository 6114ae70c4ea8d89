import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { RelayerClosedError } from '../../domain/errors';
import { intentBodySchema } from '../../domain/intent-request';
import { paymentOfBody, withoutPayment } from '../../service/assets';
import { cancelIntent } from '../../service/cancel-intent';
import { redactIntent } from '../../service/redact-intent';
import {
  attemptsFor,
  auditTrailFor,
  findIntentFor,
  listIntentsFor,
} from '../../service/intent-queries';
import { submitParsedIntent } from '../../service/submit-intent';
import { callerOf, operatorOf, tenantOf } from '../auth';
import type { ApiContext } from '../api-context';
import { errorBodySchema } from '../error-responses';
import { idempotencyHeadersSchema, idParamsSchema } from '../schemas/common';
import { noteBodySchema } from '../schemas/review';
import {
  auditTrailSchema,
  auditView,
  intentListQuerySchema,
  intentListSchema,
  intentSchema,
  intentView,
  attemptsSchema,
  attemptsView,
} from '../schemas/intents';

const errors = { '4XX': errorBodySchema, 503: errorBodySchema };

/** A tenant's own intents: submit, read, list, cancel. Operators may read and list every one. */
export const intentRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, context) => {
  const { deps } = context;
  const db = deps.database;

  app.post('/v1/intents', {
    config: { scope: ApiScope.intentsWrite },
    schema: {
      summary: 'Submit a payment intent (tenant key)',
      headers: idempotencyHeadersSchema,
      body: intentBodySchema,
      response: { 200: intentSchema, 202: intentSchema, ...errors },
    },
    handler: async (request, reply) => {
      const tenant = tenantOf(request);
      if (context.isClosing()) throw new RelayerClosedError();
      const submitted = await submitParsedIntent(
        {
          database: deps.database,
          client: deps.client,
          taskQueue: deps.taskQueue,
          admission: deps.admission,
          eagerStart: deps.eagerStart,
          timings: deps.timings,
          clock: deps.clock,
          chains: deps.chains,
        },
        {
          ...withoutPayment(request.body),
          ...(await paymentOfBody(db, request.body)),
          tenantId: tenant.tenantId,
        },
        { idempotencyKey: request.headers['idempotency-key'], submittedBy: tenant.keyId },
      );
      if (submitted.created) context.metrics.recordSubmitted();
      return reply.code(submitted.created ? 202 : 200).send(intentView(submitted.intent));
    },
  });

  app.get('/v1/intents', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'List intents, newest first (a tenant sees its own)',
      querystring: intentListQuerySchema,
      response: { 200: intentListSchema, ...errors },
    },
    handler: async (request) => {
      const list = await listIntentsFor(db, callerOf(request), request.query);
      return { intents: list.intents.map(intentView), nextCursor: list.nextCursor };
    },
  });

  app.get('/v1/intents/:id', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'One intent (another tenant’s is a 404)',
      params: idParamsSchema,
      response: { 200: intentSchema, ...errors },
    },
    handler: async (request) =>
      intentView(await findIntentFor(db, callerOf(request), request.params.id)),
  });

  app.get('/v1/intents/:id/attempts', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'Every transaction signed for the intent: replacements and re-signs, oldest first',
      params: idParamsSchema,
      response: { 200: attemptsSchema, ...errors },
    },
    handler: async (request) =>
      attemptsView(await attemptsFor(db, callerOf(request), request.params.id)),
  });

  app.get('/v1/intents/:id/audit', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'Who did what to an intent outside its workflow (cancels, reviews)',
      params: idParamsSchema,
      response: { 200: auditTrailSchema, ...errors },
    },
    handler: async (request) =>
      auditView(await auditTrailFor(db, callerOf(request), request.params.id)),
  });

  app.post('/v1/intents/:id/cancel', {
    config: { scope: ApiScope.intentsWrite },
    schema: {
      body: noteBodySchema,
      summary:
        'Cancel an intent: unsigned, it ends cancelled (200); sent but not mined, a zero-value transfer takes its nonce back (202)',
      params: idParamsSchema,
      response: { 200: intentSchema, 202: intentSchema, ...errors },
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

  app.post('/v1/intents/:id/redact', {
    config: { scope: ApiScope.redact },
    schema: {
      body: noteBodySchema,
      summary:
        "Erase an ended intent's reference and metadata everywhere the relayer keeps them (operator key with the redact scope)",
      params: idParamsSchema,
      response: { 200: intentSchema, ...errors },
    },
    handler: async (request) =>
      intentView(
        await redactIntent(deps, operatorOf(request), request.params.id, request.body?.note),
      ),
  });
};

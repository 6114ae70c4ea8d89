import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import {
  attemptsFor,
  auditTrailFor,
  findIntentFor,
  listIntentsFor,
} from '../../service/intent-queries';
import { callerOf } from '../auth';
import type { ApiContext } from '../api-context';
import { errorResponses } from '../error-responses';
import { idParamsSchema } from '../schemas/common';
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

/** Reading intents: a tenant its own, an operator every one. */
export const intentReadRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  const db = deps.database;

  app.get('/v1/intents', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'List intents, newest first (a tenant sees its own)',
      querystring: intentListQuerySchema,
      response: { 200: intentListSchema, ...errorResponses },
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
      response: { 200: intentSchema, ...errorResponses },
    },
    handler: async (request) =>
      intentView(await findIntentFor(db, callerOf(request), request.params.id)),
  });

  app.get('/v1/intents/:id/attempts', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'Every transaction signed for the intent: replacements and re-signs, oldest first',
      params: idParamsSchema,
      response: { 200: attemptsSchema, ...errorResponses },
    },
    handler: async (request) =>
      attemptsView(await attemptsFor(db, callerOf(request), request.params.id)),
  });

  app.get('/v1/intents/:id/audit', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'Who did what to an intent outside its workflow (cancels, reviews)',
      params: idParamsSchema,
      response: { 200: auditTrailSchema, ...errorResponses },
    },
    handler: async (request) =>
      auditView(await auditTrailFor(db, callerOf(request), request.params.id)),
  });
};

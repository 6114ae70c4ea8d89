import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { listPauses, pause, resume } from '../../service/pauses';
import type { ApiContext } from '../api-context';
import { operatorOf } from '../auth';
import { errorResponses } from '../error-responses';
import { idParamsSchema } from '../schemas/common';
import {
  pauseBodySchema,
  pauseListQuerySchema,
  pauseListSchema,
  pauseSchema,
  pauseView,
  resumeBodySchema,
} from '../schemas/pauses';

/**
 * An operator's emergency stop of the relayer, a tenant or a chain (review scope: the people who
 * handle incidents), and its resume.
 */
export const pauseRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.post('/v1/pauses', {
    config: { scope: ApiScope.review },
    schema: {
      summary:
        'Pause the relayer, a tenant or a chain: nothing new in it takes a permit until resumed',
      body: pauseBodySchema,
      response: {
        200: pauseSchema,
        201: pauseSchema,
        ...errorResponses,
      },
    },
    handler: async (request, reply) => {
      const paused = await pause(deps, operatorOf(request), request.body);
      return reply
        .code(paused.created ? 201 : 200)
        .send({ ...pauseView(paused.pause), replaces: paused.replaced?.id ?? null });
    },
  });

  app.post('/v1/pauses/:id/resume', {
    config: { scope: ApiScope.review },
    schema: {
      summary: 'Resume a pause: the intents it held ask for their permits, oldest first',
      params: idParamsSchema,
      body: resumeBodySchema,
      response: { 200: pauseSchema, ...errorResponses },
    },
    handler: async (request) => {
      const resumed = await resume(
        deps,
        operatorOf(request),
        request.params.id,
        request.body?.note ?? null,
      );
      return pauseView(resumed);
    },
  });

  app.get('/v1/pauses', {
    config: { scope: ApiScope.review },
    schema: {
      summary: 'The pauses in force (all=true: with the resumed ones, newest first)',
      querystring: pauseListQuerySchema,
      response: { 200: pauseListSchema, ...errorResponses },
    },
    handler: async (request) => {
      operatorOf(request);
      const pauses = await listPauses(deps, request.query.all === 'true');
      return { pauses: pauses.map(pauseView) };
    },
  });
};

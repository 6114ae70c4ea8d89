import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { backfillSchedule } from '../../service/schedule-backfill';
import { setSchedulePaused } from '../../service/payment-schedules';
import type { ApiContext } from '../api-context';
import { callerOf } from '../auth';
import { errorResponses } from '../error-responses';
import { idParamsSchema } from '../schemas/common';
import {
  backfillBodySchema,
  backfillResultSchema,
  backfillView,
  scheduleNoteBodySchema,
  scheduleSchema,
} from '../schemas/schedules';
import { scheduleViewOf } from './schedules';

/** When a schedule's occurrences run: paused, resumed, the missed ones backfilled. */
export const scheduleControlRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    app.post(`/v1/schedules/:id/${action}`, {
      config: { scope: ApiScope.intentsWrite },
      schema: {
        summary: paused
          ? 'Pause a payment schedule: no occurrence runs until it is resumed'
          : 'Resume a paused payment schedule (missed occurrences are not run: backfill them)',
        params: idParamsSchema,
        body: scheduleNoteBodySchema,
        response: { 200: scheduleSchema, ...errorResponses },
      },
      handler: async (request) => {
        const schedule = await setSchedulePaused(
          deps,
          callerOf(request),
          request.params.id,
          paused,
          request.body?.note ?? null,
        );
        return scheduleViewOf(deps, schedule);
      },
    });
  }

  app.post('/v1/schedules/:id/backfill', {
    config: { scope: ApiScope.intentsWrite },
    schema: {
      summary:
        'Run the occurrences that fell between from and to (each paid once, however often asked)',
      params: idParamsSchema,
      body: backfillBodySchema,
      response: { 200: backfillResultSchema, 202: backfillResultSchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      const result = await backfillSchedule(
        deps,
        callerOf(request),
        request.params.id,
        request.body,
      );
      return reply.code(result.counts.pending > 0 ? 202 : 200).send(backfillView(result));
    },
  });
};

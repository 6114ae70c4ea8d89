import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiScope } from '../../domain/api-scopes';
import { scheduleBodySchema } from '../../domain/payment-schedule';
import {
  createSchedule,
  deleteSchedule,
  listSchedulesFor,
  scheduleDetail,
  withDecimals,
  type ScheduleDetail,
  type StoredSchedule,
} from '../../service/payment-schedules';
import type { ApiContext, ApiDependencies } from '../api-context';
import { callerOf, tenantOf } from '../auth';
import { errorResponses } from '../error-responses';
import { idempotencyHeadersSchema, idParamsSchema } from '../schemas/common';
import { scheduleListSchema, scheduleSchema, scheduleView } from '../schemas/schedules';

/** One schedule as the API shows it, its amount also in the asset's units. */
export const scheduleViewOf = async (
  deps: ApiDependencies,
  schedule: StoredSchedule,
  detail?: Omit<ScheduleDetail, 'schedule'>,
) => scheduleView((await withDecimals(deps, [schedule]))[0]!, detail);

/**
 * A tenant's recurring payments, each timed by a Temporal Schedule; every occurrence is an intent
 * admitted like one submitted by hand. Operators may read and delete any.
 */
export const scheduleRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.post('/v1/schedules', {
    config: { scope: ApiScope.intentsWrite },
    schema: {
      summary: 'Create a payment schedule (tenant key): a payment made every span or by cron',
      headers: idempotencyHeadersSchema,
      body: scheduleBodySchema,
      response: { 200: scheduleSchema, 201: scheduleSchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      const made = await createSchedule(
        deps,
        tenantOf(request),
        request.body,
        request.headers['idempotency-key'],
      );
      return reply.code(made.created ? 201 : 200).send(await scheduleViewOf(deps, made.schedule));
    },
  });

  app.get('/v1/schedules', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'The payment schedules, newest first (a tenant sees its own)',
      response: { 200: scheduleListSchema, ...errorResponses },
    },
    handler: async (request) => {
      const schedules = await withDecimals(deps, await listSchedulesFor(deps, callerOf(request)));
      return { schedules: schedules.map((schedule) => scheduleView(schedule)) };
    },
  });

  app.get('/v1/schedules/:id', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'One payment schedule, its next times and what its latest occurrences became',
      params: idParamsSchema,
      response: { 200: scheduleSchema, ...errorResponses },
    },
    handler: async (request) => {
      const { schedule, ...detail } = await scheduleDetail(
        deps,
        callerOf(request),
        request.params.id,
      );
      return scheduleViewOf(deps, schedule, detail);
    },
  });

  app.delete('/v1/schedules/:id', {
    config: { scope: ApiScope.intentsWrite },
    schema: {
      summary: 'Delete a payment schedule: no occurrence of it runs again',
      params: idParamsSchema,
      response: { 204: z.null(), ...errorResponses },
    },
    handler: async (request, reply) => {
      await deleteSchedule(deps, callerOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  });
};

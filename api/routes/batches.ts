import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import type { IntentBody } from '../../domain/intent-request';
import { intentOfBody } from '../../service/assets';
import type { ServiceDependencies } from '../../service/dependencies';
import { RelayerClosedError } from '../../domain/errors';
import { batchResultsFor, cancelBatch, findBatchFor } from '../../service/batch-queries';
import { submitBatch } from '../../service/submit-batch';
import type { ApiContext } from '../api-context';
import { callerOf, tenantOf } from '../auth';
import { errorResponses } from '../error-responses';
import {
  batchBodySchema,
  batchCancelBodySchema,
  batchResultsQuerySchema,
  batchResultsSchema,
  batchSchema,
  batchView,
} from '../schemas/batches';
import { idempotencyHeadersSchema, idParamsSchema } from '../schemas/common';

/** Items whose amounts are given as decimals, in base units of their assets. */
const itemsInBaseUnits = (
  database: ServiceDependencies['database'],
  items: readonly IntentBody[],
) =>
  Promise.all(
    items.map((item, index) => intentOfBody(database, item, `items.${index}.decimalAmount`)),
  );

/** Batch payouts: submit, follow, read results in input order, cancel. */
export const batchRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, context) => {
  const { deps } = context;
  const db = deps.database;

  app.post('/v1/batches', {
    config: { scope: ApiScope.batchesWrite },
    // 10,000 items are about 2 MB of JSON.
    bodyLimit: 16 * 1024 * 1024,
    schema: {
      summary: 'Submit a batch of payments (tenant key)',
      headers: idempotencyHeadersSchema,
      body: batchBodySchema,
      response: { 200: batchSchema, 202: batchSchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      const tenant = tenantOf(request);
      if (context.isClosing()) throw new RelayerClosedError();
      const { batch, created } = await submitBatch(
        deps,
        tenant.tenantId,
        { ...request.body, items: await itemsInBaseUnits(db, request.body.items) },
        request.headers['idempotency-key'],
        tenant.keyId,
      );
      if (created) context.metrics.recordBatch(batch.itemCount);
      const view = batchView(await findBatchFor(db, tenant, batch.id));
      return reply.code(created ? 202 : 200).send(view);
    },
  });

  app.get('/v1/batches/:id', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'A batch and its items counted by status',
      params: idParamsSchema,
      response: { 200: batchSchema, ...errorResponses },
    },
    handler: async (request) =>
      batchView(await findBatchFor(db, callerOf(request), request.params.id)),
  });

  app.get('/v1/batches/:id/results', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: 'Per-item results in input order (results[i] is item i), a page at a time',
      params: idParamsSchema,
      querystring: batchResultsQuerySchema,
      response: { 200: batchResultsSchema, ...errorResponses },
    },
    handler: async (request) =>
      batchResultsFor(db, callerOf(request), request.params.id, request.query),
  });

  app.post('/v1/batches/:id/cancel', {
    config: { scope: ApiScope.batchesWrite },
    schema: {
      summary: 'Cancel a batch: nothing more starts; unsigned items are cancelled, signed ones end',
      params: idParamsSchema,
      body: batchCancelBodySchema,
      response: { 202: batchSchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      const batch = await cancelBatch(
        deps.client,
        db,
        callerOf(request),
        request.params.id,
        request.body?.reason ?? 'cancel requested',
      );
      return reply.code(202).send(batchView(batch));
    },
  });
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiScope } from '../../domain/api-scopes';
import { decideIntentApproval } from '../../service/approve-intent';
import { decideBatchApprovalFor } from '../../service/approve-batch';
import { batchSchema, batchView } from '../schemas/batches';
import type { ApiContext } from '../api-context';
import { callerOf } from '../auth';
import { errorResponses } from '../error-responses';
import { idParamsSchema } from '../schemas/common';
import { intentSchema, intentView } from '../schemas/intents';

const noteBodySchema = z
  .strictObject({
    note: z.string().max(1000, { error: 'note: at most 1000 characters' }).optional(),
  })
  .nullish();

/**
 * Four eyes: an intent at or above its tenant's approval threshold waits, nothing held, until a
 * key with the `approve` scope — of its tenant, or an operator's — other than the one that
 * submitted it approves or rejects it (see service/approve-intent.ts); a batch with such an item
 * waits as a batch for one such decision (service/approve-batch.ts).
 */
export const approvalRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  for (const [decision, summary] of [
    [
      'approve',
      'Approve an intent awaiting approval: it goes on to be paid (not by the key that submitted it)',
    ],
    ['reject', 'Reject an intent awaiting approval: it ends rejected, nothing held or sent'],
  ] as const) {
    app.post(`/v1/intents/:id/${decision}`, {
      config: { scope: ApiScope.approve },
      schema: {
        summary,
        params: idParamsSchema,
        body: noteBodySchema,
        response: { 200: intentSchema, ...errorResponses },
      },
      handler: async (request) =>
        intentView(
          await decideIntentApproval(
            deps,
            callerOf(request),
            request.params.id,
            decision,
            request.body?.note,
          ),
        ),
    });
  }

  for (const [decision, summary] of [
    [
      'approve',
      'Approve a batch awaiting approval, once for all its items: they run (not by the key that submitted it)',
    ],
    ['reject', 'Reject a batch awaiting approval: it ends rejected, none of its items started'],
  ] as const) {
    app.post(`/v1/batches/:id/${decision}`, {
      config: { scope: ApiScope.approve },
      schema: {
        summary,
        params: idParamsSchema,
        body: noteBodySchema,
        response: { 200: batchSchema, ...errorResponses },
      },
      handler: async (request) =>
        batchView(
          await decideBatchApprovalFor(
            deps,
            callerOf(request),
            request.params.id,
            decision,
            request.body?.note,
          ),
        ),
    });
  }
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { reviewIntent } from '../../service/review-intent';
import type { ApiContext } from '../api-context';
import { operatorOf } from '../auth';
import { errorResponses } from '../error-responses';
import { idParamsSchema } from '../schemas/common';
import { intentSchema, intentView } from '../schemas/intents';
import {
  resolveConfirmedBodySchema,
  resolveFailedBodySchema,
  noteBodySchema,
} from '../schemas/review';

const response = { 200: intentSchema, ...errorResponses };

/**
 * An operator's ways out of needs_review; each is checked on-chain and audited, and delivered to
 * the intent's workflow waiting in review (see service/review-intent.ts).
 */
export const reviewRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.post('/v1/intents/:id/review/confirm', {
    config: { scope: ApiScope.review },
    schema: {
      summary: 'Resolve as confirmed: the given transaction paid it (checked on-chain)',
      params: idParamsSchema,
      body: resolveConfirmedBodySchema,
      response,
    },
    handler: async (request) => {
      const { txHash, note } = request.body;
      return intentView(
        await reviewIntent(deps, operatorOf(request), request.params.id, {
          action: 'confirm',
          txHash: txHash as `0x${string}`,
          note,
        }),
      );
    },
  });

  app.post('/v1/intents/:id/review/fail', {
    config: { scope: ApiScope.review },
    schema: {
      summary: 'Resolve as failed: hold released (refused while its transaction may still land)',
      params: idParamsSchema,
      body: resolveFailedBodySchema,
      response,
    },
    handler: async (request) =>
      intentView(
        await reviewIntent(deps, operatorOf(request), request.params.id, {
          action: 'fail',
          reason: request.body.reason,
        }),
      ),
  });

  for (const [action, summary] of [
    ['retry', 'Send the same signed transaction again and follow it to its end'],
    [
      'cancel',
      'Take the nonce back: a zero-value transfer to the wallet itself at the same nonce, outbidding every attempt; the intent fails once it is mined (or is confirmed if its own attempt wins)',
    ],
  ] as const) {
    app.post(`/v1/intents/:id/review/${action}`, {
      config: { scope: ApiScope.review },
      schema: { summary, params: idParamsSchema, body: noteBodySchema, response },
      handler: async (request) =>
        intentView(
          await reviewIntent(deps, operatorOf(request), request.params.id, {
            action,
            note: request.body?.note,
          }),
        ),
    });
  }
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { registerToken, tokensOf } from '../../service/assets';
import type { ApiContext } from '../api-context';
import { operatorOf } from '../auth';
import { errorResponses } from '../error-responses';
import {
  registeredTokenSchema,
  registerTokenBodySchema,
  tokensQuerySchema,
  tokensSchema,
} from '../schemas/assets';

/**
 * The tokens intents may pay in, per chain (besides `native`): any key lists, operators register.
 */
export const assetRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.get('/v1/assets', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary:
        'Tokens registered per chain (an intent names one by alias; "native" is always there)',
      querystring: tokensQuerySchema,
      response: { 200: tokensSchema, ...errorResponses },
    },
    handler: async (request) => ({ tokens: await tokensOf(deps.database, request.query.chainId) }),
  });

  app.post('/v1/assets', {
    config: { scope: ApiScope.assetsAdmin },
    schema: {
      summary:
        'Register an ERC-20 (operator key): symbol and decimals are read from it, a fee on transfer is probed',
      body: registerTokenBodySchema,
      response: { 201: registeredTokenSchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      operatorOf(request);
      const token = await registerToken(deps, request.body);
      const { count, amount } = token.unregisteredDeposits;
      return reply
        .code(201)
        .send({ ...token, unregisteredDeposits: { count, amount: amount.toString() } });
    },
  });
};

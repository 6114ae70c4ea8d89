import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { balancesOf } from '../../service/balances';
import type { ApiContext } from '../api-context';
import { tenantOf } from '../auth';
import { errorResponses } from '../error-responses';
import { balancesSchema } from '../schemas/assets';

/** A tenant's own books: what it can pay out, and what its open intents hold. */
export const balanceRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.get('/v1/balances', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary:
        "The key's tenant's balances per asset: available to pay out, and held for its open intents (base units, with the asset's decimals)",
      response: { 200: balancesSchema, ...errorResponses },
    },
    handler: async (request) => {
      const { tenantId } = tenantOf(request);
      const balances = await balancesOf(deps.database, tenantId);
      return {
        tenantId,
        balances: balances.map((balance) => ({
          ...balance,
          available: balance.available.toString(),
          held: balance.held.toString(),
        })),
      };
    },
  });
};

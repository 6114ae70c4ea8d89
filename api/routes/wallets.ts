import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { walletStandings } from '../../service/wallet-standing';
import type { ApiContext } from '../api-context';
import { operatorOf } from '../auth';
import { errorBodySchema } from '../error-responses';
import { walletsSchema, walletView } from '../schemas';

/** The hot wallets, for operators: what each holds, what it has in flight, whether it waits. */
export const walletRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.get('/v1/wallets', {
    schema: {
      summary: 'Hot wallets: balance, nonces in flight, blocked by an intent in review, low',
      response: { 200: walletsSchema, '4XX': errorBodySchema, 503: errorBodySchema },
    },
    handler: async (request) => {
      operatorOf(request);
      return { wallets: (await walletStandings(deps)).map(walletView) };
    },
  });
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { z } from 'zod';
import { addWallet, retireWallet, setWalletPool } from '../../service/wallet-admin';
import { walletStandings } from '../../service/wallet-standing';
import type { ApiContext } from '../api-context';
import { operatorOf } from '../auth';
import { errorResponses } from '../error-responses';
import { noBodySchema } from '../schemas/common';
import {
  addedWalletSchema,
  addWalletBodySchema,
  walletParamsSchema,
  walletPoolBodySchema,
  walletsSchema,
  walletView,
} from '../schemas/wallets';

/** The hot wallets, for operators: what each holds, what it has in flight, whether it waits. */
export const walletRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.get('/v1/wallets', {
    config: { scope: ApiScope.walletsAdmin },
    schema: {
      summary: 'Hot wallets: balance, nonces in flight, blocked by an intent in review, low',
      response: { 200: walletsSchema, ...errorResponses },
    },
    handler: async (request) => {
      operatorOf(request);
      return { wallets: (await walletStandings(deps)).map(walletView) };
    },
  });

  app.post('/v1/wallets', {
    config: { scope: ApiScope.walletsAdmin },
    schema: {
      summary:
        'Add a hot wallet by the signer holding its key (KMS or a remote signer): every worker takes it on',
      body: addWalletBodySchema,
      response: { 201: addedWalletSchema, ...errorResponses },
    },
    handler: async (request, reply) => {
      operatorOf(request);
      const { address, signer } = request.body;
      return reply.code(201).send(await addWallet(deps, address, signer));
    },
  });

  for (const [action, retired] of [
    ['retire', true],
    ['activate', false],
  ] as const) {
    app.post(`/v1/wallets/:chainId/:address/${action}`, {
      config: { scope: ApiScope.walletsAdmin },
      schema: {
        body: noBodySchema,
        summary: retired
          ? 'Retire a hot wallet: it signs nothing new and finishes what it has'
          : 'Put a retired hot wallet back to work',
        params: walletParamsSchema,
        response: { 204: z.null(), ...errorResponses },
      },
      handler: async (request, reply) => {
        operatorOf(request);
        const { chainId, address } = request.params;
        await retireWallet(deps, chainId, address, retired);
        return reply.code(204).send(null);
      },
    });
  }

  app.put('/v1/tenants/:tenantId/wallets', {
    config: { scope: ApiScope.walletsAdmin },
    schema: {
      summary: "Set the hot wallets a tenant's intents may be sent from on a chain",
      params: z.strictObject({ tenantId: z.string() }),
      body: walletPoolBodySchema,
      response: { 204: z.null(), ...errorResponses },
    },
    handler: async (request, reply) => {
      operatorOf(request);
      const { chainId, wallets } = request.body;
      await setWalletPool(deps, request.params.tenantId, chainId, wallets);
      return reply.code(204).send(null);
    },
  });
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { depositView } from '../../domain/deposit';
import { reconciliationView } from '../../domain/deposit-reconciliation';
import {
  depositAddressFor,
  depositAddressesOf,
  depositsOf,
  reconcileChain,
  type DepositAddress,
} from '../../service/deposits';
import type { ApiContext } from '../api-context';
import { operatorOf, tenantOf } from '../auth';
import { errorResponses } from '../error-responses';
import {
  depositAddressBodySchema,
  depositAddressSchema,
  depositAddressesSchema,
  depositsQuerySchema,
  depositsSchema,
  reconcileBodySchema,
  reconciliationSchema,
} from '../schemas/deposits';

const addressView = (address: DepositAddress) => ({
  chainId: address.chainId,
  address: address.address,
  index: address.index,
  createdAt: address.createdAt.toISOString(),
  reference: address.reference ?? null,
  metadata: { ...address.metadata },
});

/** A tenant funds its books on chain: its deposit addresses, and what reached them. */
export const depositRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.post('/v1/deposit-addresses', {
    config: { scope: ApiScope.intentsWrite },
    schema: {
      summary: "The key's tenant's deposit address on a chain (the same one on every call)",
      body: depositAddressBodySchema,
      response: { 200: depositAddressSchema, ...errorResponses },
    },
    handler: async (request) => {
      const { tenantId } = tenantOf(request);
      const { chainId, index, reference, metadata } = request.body;
      return addressView(
        await depositAddressFor(deps, tenantId, chainId, index, { reference, metadata }),
      );
    },
  });

  app.get('/v1/deposit-addresses', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: "The key's tenant's deposit addresses, per chain",
      response: { 200: depositAddressesSchema, ...errorResponses },
    },
    handler: async (request) => ({
      addresses: (await depositAddressesOf(deps, tenantOf(request).tenantId)).map(addressView),
    }),
  });

  app.get('/v1/deposits', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: "What reached the key's tenant's deposit addresses, newest first",
      querystring: depositsQuerySchema,
      response: { 200: depositsSchema, ...errorResponses },
    },
    handler: async (request) => ({
      deposits: (await depositsOf(deps, tenantOf(request).tenantId, request.query)).map(
        depositView,
      ),
    }),
  });

  app.post('/v1/deposits/reconcile', {
    config: { scope: ApiScope.walletsAdmin },
    schema: {
      summary:
        "Reconcile a chain's deposits now: per address and asset, what the chain shows arrived beside what the books recorded",
      body: reconcileBodySchema,
      response: { 200: reconciliationSchema, ...errorResponses },
    },
    handler: async (request) => {
      operatorOf(request);
      return reconciliationView(await reconcileChain(deps, request.body.chainId));
    },
  });
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiScope } from '../../domain/api-scopes';
import type { ApiContext } from '../api-context';
import { callerOf, operatorOf } from '../auth';
import { errorResponses } from '../error-responses';
import { addRecipient, recipientsOf, removeRecipient } from '../../service/policy-recipients';
import {
  chainFilterQuerySchema,
  policyTenantParamsSchema,
  recipientBodySchema,
  recipientParamsSchema,
  recipientSchema,
  recipientsSchema,
} from '../schemas/policies';

/** The recipients on a tenant's allow- and deny-lists: operators change them, a tenant reads. */
export const policyRecipientRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.get('/v1/tenants/:tenantId/recipients', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: "The recipients on a tenant's allow- and deny-lists",
      params: policyTenantParamsSchema,
      querystring: chainFilterQuerySchema,
      response: { 200: recipientsSchema, ...errorResponses },
    },
    handler: async (request) => ({
      recipients: await recipientsOf(
        deps,
        callerOf(request),
        request.params.tenantId,
        request.query.chainId,
      ),
    }),
  });

  app.post('/v1/tenants/:tenantId/recipients', {
    config: { scope: ApiScope.policiesAdmin },
    schema: {
      summary: "Put a recipient on a tenant's allow- or deny-list for a chain (operator key)",
      params: policyTenantParamsSchema,
      body: recipientBodySchema,
      response: { 201: recipientSchema, ...errorResponses },
    },
    handler: async (request, reply) =>
      reply
        .code(201)
        .send(await addRecipient(deps, operatorOf(request), request.params.tenantId, request.body)),
  });

  app.delete('/v1/tenants/:tenantId/recipients/:chainId/:address', {
    config: { scope: ApiScope.policiesAdmin },
    schema: {
      summary: "Take a recipient off a tenant's lists for a chain (operator key)",
      params: recipientParamsSchema,
      response: { 204: z.null(), ...errorResponses },
    },
    handler: async (request, reply) => {
      const { tenantId, chainId, address } = request.params;
      await removeRecipient(deps, operatorOf(request), tenantId, chainId, address);
      return reply.code(204).send(null);
    },
  });
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiScope } from '../../domain/api-scopes';
import {
  addRecipient,
  policyChanges,
  policyOf,
  recipientsOf,
  removeRecipient,
  setAllowListOnly,
  setBookLimits,
} from '../../service/policies';
import type { ApiContext } from '../api-context';
import { callerOf, operatorOf } from '../auth';
import { errorBodySchema } from '../error-responses';
import {
  bookLimitsBodySchema,
  policyChangesQuerySchema,
  policyChangesSchema,
  policySchema,
  policyTenantParamsSchema,
  recipientBodySchema,
  recipientParamsSchema,
  recipientRuleBodySchema,
  recipientSchema,
  recipientsQuerySchema,
  recipientsSchema,
} from '../schemas/policies';

const errors = { '4XX': errorBodySchema, 503: errorBodySchema };

/**
 * A tenant's payment policy: operators set it (policies:admin), a tenant's key reads its own.
 * Every change is a new version with who made it and what it was before.
 */
export const policyRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, { deps }) => {
  app.get('/v1/tenants/:tenantId/policy', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: "A tenant's payment policy in force: spend limits per asset, allow-list chains",
      params: policyTenantParamsSchema,
      response: { 200: policySchema, ...errors },
    },
    handler: (request) => policyOf(deps, callerOf(request), request.params.tenantId),
  });

  app.get('/v1/tenants/:tenantId/policy/changes', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary:
        "Every change to a tenant's payment policy, the latest first: who, what, before → after",
      params: policyTenantParamsSchema,
      querystring: policyChangesQuerySchema,
      response: { 200: policyChangesSchema, ...errors },
    },
    handler: async (request) => {
      const changes = await policyChanges(
        deps,
        callerOf(request),
        request.params.tenantId,
        request.query.limit,
      );
      return { changes: changes.map((change) => ({ ...change, at: change.at.toISOString() })) };
    },
  });

  app.put('/v1/tenants/:tenantId/policy/limits', {
    config: { scope: ApiScope.policiesAdmin },
    schema: {
      summary:
        'Set the spend limits of one asset on one chain (operator key): most per intent, per rolling 24 h, per rolling 7 days',
      params: policyTenantParamsSchema,
      body: bookLimitsBodySchema,
      response: { 200: policySchema, ...errors },
    },
    handler: (request) =>
      setBookLimits(deps, operatorOf(request), request.params.tenantId, request.body),
  });

  app.put('/v1/tenants/:tenantId/policy/recipients', {
    config: { scope: ApiScope.policiesAdmin },
    schema: {
      summary:
        'Who may be paid on a chain (operator key): only allow-listed recipients, or anyone not denied',
      params: policyTenantParamsSchema,
      body: recipientRuleBodySchema,
      response: { 200: policySchema, ...errors },
    },
    handler: (request) =>
      setAllowListOnly(
        deps,
        operatorOf(request),
        request.params.tenantId,
        request.body.chainId,
        request.body.recipients === 'allow_list',
      ),
  });

  app.get('/v1/tenants/:tenantId/recipients', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: "The recipients on a tenant's allow- and deny-lists",
      params: policyTenantParamsSchema,
      querystring: recipientsQuerySchema,
      response: { 200: recipientsSchema, ...errors },
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
      response: { 201: recipientSchema, ...errors },
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
      response: { 204: z.null(), ...errors },
    },
    handler: async (request, reply) => {
      const { tenantId, chainId, address } = request.params;
      await removeRecipient(deps, operatorOf(request), tenantId, chainId, address);
      return reply.code(204).send(null);
    },
  });
};

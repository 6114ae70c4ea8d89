import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiScope } from '../../domain/api-scopes';
import { policyChanges, policyOf } from '../../service/policies';
import { setBookLimits } from '../../service/policy-limits';
import { setAllowListOnly } from '../../service/policy-recipients';
import type { ApiContext } from '../api-context';
import { callerOf, operatorOf } from '../auth';
import { errorResponses } from '../error-responses';
import {
  bookLimitsBodySchema,
  policyChangesQuerySchema,
  policyChangesSchema,
  policySchema,
  policyTenantParamsSchema,
  recipientRuleBodySchema,
} from '../schemas/policies';

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
      response: { 200: policySchema, ...errorResponses },
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
      response: { 200: policyChangesSchema, ...errorResponses },
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
      response: { 200: policySchema, ...errorResponses },
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
      response: { 200: policySchema, ...errorResponses },
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
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiScope } from '../../domain/api-scopes';
import { policyChanges, policyOf } from '../../service/policies';
import { setBookLimits } from '../../service/policy-limits';
import {
  addRecipient,
  recipientsOf,
  removeRecipient,
  setAllowListOnly,
} from '../../service/policy-recipients';
import { allowCall, allowedCallsOf, disallowCall } from '../../service/contract-calls';
import type { ApiContext } from '../api-context';
import { callTargetHasCode } from '../../service/call-targets';
import type { AllowedCall } from '../../domain/payment-policy';
import { callerOf, operatorOf } from '../auth';
import { errorBodySchema } from '../error-responses';
import {
  allowedCallAnswerSchema,
  allowedCallBodySchema,
  allowedCallParamsSchema,
  allowedCallsSchema,
  bookLimitsBodySchema,
  policyChangesQuerySchema,
  policyChangesSchema,
  policySchema,
  policyTenantParamsSchema,
  recipientBodySchema,
  recipientParamsSchema,
  recipientRuleBodySchema,
  recipientSchema,
  chainFilterQuerySchema,
  recipientsSchema,
} from '../schemas/policies';

const errors = { '4XX': errorBodySchema, 503: errorBodySchema };

const allowedCallView = (call: AllowedCall) => ({
  ...call,
  signature: call.signature ?? null,
  maxValue: call.maxValue?.toString() ?? null,
  allowNoCode: call.allowNoCode === true,
});

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
      querystring: chainFilterQuerySchema,
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

  app.get('/v1/tenants/:tenantId/contract-calls', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: "The contract functions a tenant's intents may call",
      params: policyTenantParamsSchema,
      querystring: chainFilterQuerySchema,
      response: { 200: allowedCallsSchema, ...errors },
    },
    handler: async (request) => ({
      calls: (
        await allowedCallsOf(
          deps,
          callerOf(request),
          request.params.tenantId,
          request.query.chainId,
        )
      ).map(allowedCallView),
    }),
  });

  app.post('/v1/tenants/:tenantId/contract-calls', {
    config: { scope: ApiScope.policiesAdmin },
    schema: {
      summary:
        "Allow a tenant's intents to call one function of a contract on a chain (operator key), with a bound on the value sent",
      params: policyTenantParamsSchema,
      body: allowedCallBodySchema,
      response: { 201: allowedCallAnswerSchema, ...errors },
    },
    handler: async (request, reply) => {
      const { tenantId } = request.params;
      const allowed = await allowCall(deps, operatorOf(request), tenantId, request.body);
      // The call is allowed by now: a chain that does not answer leaves the look unknown (null).
      const targetHasCode = await callTargetHasCode(
        deps.chains,
        allowed.chainId,
        allowed.contract,
      ).catch(() => null);
      return reply.code(201).send({ ...allowedCallView(allowed), targetHasCode });
    },
  });

  app.delete('/v1/tenants/:tenantId/contract-calls/:chainId/:contract/:function', {
    config: { scope: ApiScope.policiesAdmin },
    schema: {
      summary: "No longer allow a tenant's intents to call a contract function (operator key)",
      params: allowedCallParamsSchema,
      response: { 204: z.null(), ...errors },
    },
    handler: async (request, reply) => {
      const { tenantId, ...call } = request.params;
      await disallowCall(deps, operatorOf(request), tenantId, call);
      return reply.code(204).send(null);
    },
  });
};

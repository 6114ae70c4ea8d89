import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiScope } from '../../domain/api-scopes';
import type { ApiContext } from '../api-context';
import { callerOf, operatorOf } from '../auth';
import { errorResponses } from '../error-responses';
import { allowCall, allowedCallsOf, disallowCall } from '../../service/contract-calls';
import { callTargetHasCode } from '../../service/call-targets';
import type { AllowedCall } from '../../domain/payment-policy';
import {
  allowedCallAnswerSchema,
  allowedCallBodySchema,
  allowedCallParamsSchema,
  allowedCallsSchema,
  chainFilterQuerySchema,
  policyTenantParamsSchema,
} from '../schemas/policies';

const allowedCallView = (call: AllowedCall) => ({
  ...call,
  signature: call.signature ?? null,
  maxValue: call.maxValue?.toString() ?? null,
  allowNoCode: call.allowNoCode === true,
});

/** The contract functions a tenant's intents may call: operators allow them, a tenant reads. */
export const policyContractCallRoutes: FastifyPluginAsyncZod<ApiContext> = async (
  app,
  { deps },
) => {
  app.get('/v1/tenants/:tenantId/contract-calls', {
    config: { scope: ApiScope.intentsRead },
    schema: {
      summary: "The contract functions a tenant's intents may call",
      params: policyTenantParamsSchema,
      querystring: chainFilterQuerySchema,
      response: { 200: allowedCallsSchema, ...errorResponses },
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
      response: { 201: allowedCallAnswerSchema, ...errorResponses },
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
      response: { 204: z.null(), ...errorResponses },
    },
    handler: async (request, reply) => {
      const { tenantId, ...call } = request.params;
      await disallowCall(deps, operatorOf(request), tenantId, call);
      return reply.code(204).send(null);
    },
  });
};

import { parseQueryString } from './query-string';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { routeDocs } from './route-docs';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { ApiContext, ApiDependencies } from './api-context';
import { ApiMetrics } from './api-metrics';
import { requireApiKey, requireScope } from './auth';
import { requestLimits } from './request-limits';
import { ApiRejection, logIfInternal, sendRejection, toRejection } from './error-responses';
import type { ApiScope } from '../domain/api-scopes';
import { RejectionCode } from '../domain/rejections';
import { log } from '../domain/log';
import { nameActiveSpan } from '../domain/tracer';
import { assetRoutes } from './routes/assets';
import { balanceRoutes } from './routes/balances';
import { depositRoutes } from './routes/deposits';
import { batchRoutes } from './routes/batches';
import { healthRoutes } from './routes/health';
import { intentRoutes } from './routes/intents';
import { intentReadRoutes } from './routes/intent-reads';
import { policyRoutes } from './routes/policies';
import { policyRecipientRoutes } from './routes/policy-recipients';
import { policyContractCallRoutes } from './routes/policy-contract-calls';
import { approvalRoutes } from './routes/approvals';
import { pauseRoutes } from './routes/pauses';
import { scheduleRoutes } from './routes/schedules';
import { scheduleControlRoutes } from './routes/schedule-controls';
import { reviewRoutes } from './routes/review';
import { walletRoutes } from './routes/wallets';
import { webhookRoutes } from './routes/webhooks';

/** Fastify's trust: the first `hops` proxies from the server, or the listed addresses. */
const trustedProxies = (trust: number | readonly string[]) =>
  typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : [...trust];

/** Where a refusal counts in relayer_intents_rejected_total. */
const submitRoutes = new Set(['/v1/intents', '/v1/batches']);

/** A route of the API and the scope a key needs for it. */
export interface ScopedRoute {
  method: string;
  url: string;
  scope: ApiScope;
}

export interface RelayerApi {
  readonly app: FastifyInstance;
  /** Every /v1 route with the scope it needs (what test/integration/api-scopes.test.ts walks). */
  readonly routes: readonly ScopedRoute[];
  /** Refuse new intents (503 closed) and report not ready, while in-flight requests finish. */
  startClosing(): void;
}

/** Every /v1 route group, each behind the key, its limits and its scope. */
const v1RouteGroups = [
  intentRoutes,
  intentReadRoutes,
  reviewRoutes,
  batchRoutes,
  walletRoutes,
  assetRoutes,
  balanceRoutes,
  depositRoutes,
  webhookRoutes,
  policyRoutes,
  policyRecipientRoutes,
  policyContractCallRoutes,
  approvalRoutes,
  pauseRoutes,
  scheduleRoutes,
  scheduleControlRoutes,
];

/**
 * The HTTP API: routes validate with zod schemas, which also make the OpenAPI document
 * (GET /openapi.json). Every refusal is a JSON body with a `code` from domain/rejections.ts.
 */
export async function buildApi(deps: ApiDependencies): Promise<RelayerApi> {
  let closing = false;
  const routes: ScopedRoute[] = [];
  const metrics = new ApiMetrics(deps.registry, deps.database);
  const context: ApiContext = { deps, metrics, isClosing: () => closing };
  const app = newServer(deps);
  acceptEmptyJsonBodies(app);
  if (deps.traced) {
    // The HTTP server's span knows the method only: the route says which request it was.
    app.addHook('onRequest', async (request) => {
      const route = request.routeOptions.url;
      if (route) nameActiveSpan(`${request.method} ${route}`, { 'http.route': route });
    });
  }
  answerEveryErrorAsRejection(app, metrics);
  await describeInOpenApi(app);
  await app.register(healthRoutes, context);
  await registerV1(app, context, routes);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.ready();
  return {
    app,
    routes,
    startClosing: () => {
      closing = true;
    },
  };
}

function newServer(deps: ApiDependencies) {
  // The process's log (JSON lines with the trace's ids), from warnings up: a line per request
  // would be noise beside the metrics.
  const apiLog: FastifyBaseLogger = log.child({}, { level: 'warn' });
  const app = Fastify({
    loggerInstance: apiLog,
    bodyLimit: 64 * 1024,
    routerOptions: { querystringParser: parseQueryString },
    // Behind a load balancer request.ip (the per-address limit, the logs) is the client only
    // when the balancer is trusted; anyone else could write X-Forwarded-For.
    ...(deps.trustProxy !== undefined && { trustProxy: trustedProxies(deps.trustProxy) }),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  return app;
}

type ApiServer = ReturnType<typeof newServer>;

/**
 * `curl -H 'Content-Type: application/json'` with no body is how people call a POST that takes
 * none (a cancel, enable, rotate-secret): fastify refuses it as malformed. Empty is no body
 * here, and a route that needs one says so by its schema.
 */
function acceptEmptyJsonBodies(app: ApiServer): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body.length === 0 ? done(null, undefined) : parseJson(request, body.toString(), done),
  );
}

/** Every refusal and failure is a JSON body with its code; a submit's refusal is counted. */
function answerEveryErrorAsRejection(app: ApiServer, metrics: ApiMetrics): void {
  app.setErrorHandler((error, request, reply) => {
    const rejection = toRejection(error);
    logIfInternal(request, error, rejection);
    if (request.method === 'POST' && submitRoutes.has(request.routeOptions.url ?? '')) {
      metrics.recordRejected(rejection.code);
    }
    return sendRejection(reply, rejection);
  });
  app.setNotFoundHandler((request, reply) =>
    sendRejection(
      reply,
      new ApiRejection(RejectionCode.notFound, `no route ${request.method} ${request.url}`),
    ),
  );
}

/**
 * The OpenAPI document; every route says what it does (api/route-docs.ts): its description
 * there, docs/api.md's table.
 */
async function describeInOpenApi(app: ApiServer): Promise<void> {
  await app.register(swagger, {
    openapi: {
      // 3.1: its schemas are JSON Schema 2020-12, which any validator reads as they are.
      openapi: '3.1.0',
      info: {
        title: 'Payment relayer',
        version: '1',
        description: 'Payment intents sent on-chain exactly once, under an RPC quota',
      },
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
    // Fills components.schemas with the schemas named by .meta({ id }), which the routes $ref.
    transformObject: jsonSchemaTransformObject,
  });
  app.addHook('onRoute', (route) => {
    if (route.method === 'HEAD' || route.schema?.hide) return;
    const key = `${String(route.method)} ${route.url}`;
    const docs = routeDocs[key];
    if (!docs) throw new Error(`route ${key} is not in api/route-docs.ts`);
    route.schema = { ...route.schema, description: docs.what };
  });
}

/** The /v1 routes, each behind the key, its limits and its scope; noted in `routes`. */
async function registerV1(app: ApiServer, context: ApiContext, routes: ScopedRoute[]) {
  const { deps } = context;
  const limits =
    deps.requestLimits && (await requestLimits(app, deps.requestLimits, deps.registry));
  await app.register(async (v1) => {
    // By address before the key is looked up, so invalid keys cannot flood the database.
    if (limits) v1.addHook('onRequest', limits.ip);
    v1.addHook('onRequest', requireApiKey(deps));
    if (limits) v1.addHook('onRequest', limits.key);
    v1.addHook('onRequest', requireScope);
    // A route that names no scope would refuse every key: caught as it is registered.
    v1.addHook('onRoute', (route) => {
      if (route.method === 'HEAD') return;
      const scope = route.config?.scope;
      if (scope === undefined)
        throw new Error(`route ${String(route.method)} ${route.url} names no scope`);
      routes.push({ method: String(route.method), url: route.url, scope });
      // The OpenAPI document names it too: the bearer key, with the scope it must hold.
      route.schema = { ...route.schema, security: [{ apiKey: [scope] }] };
    });
    for (const group of v1RouteGroups) await v1.register(group, context);
  });
}

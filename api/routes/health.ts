import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { readinessProbes } from '../../service/readiness';
import type { ApiContext } from '../api-context';

const checkTimeoutMs = 2000;

const readinessSchema = z.object({
  ready: z.boolean(),
  checks: z.record(z.string(), z.string()).describe('"ok" or what failed'),
});

async function check(probe: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer in ${checkTimeoutMs} ms`)),
          checkTimeoutMs,
        );
      }),
    ]);
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness (the process answers) and readiness (it can do its work right now). */
export const healthRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, context) => {
  const { deps } = context;

  app.get('/healthz', {
    schema: { summary: 'Liveness', response: { 200: z.object({ status: z.literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.get('/readyz', {
    schema: {
      summary: 'Readiness: Temporal, the database and every chain answer, and not shutting down',
      response: { 200: readinessSchema, 503: readinessSchema },
    },
    handler: async (_request, reply) => {
      // At once, so a slow dependency costs one timeout, not one per check.
      const probes = readinessProbes(deps);
      const results = await Promise.all(probes.map(({ probe }) => check(probe)));
      const checks = Object.fromEntries(probes.map(({ name }, i) => [name, results[i]!]));
      if (context.isClosing()) checks.process = 'shutting down';
      const ready = Object.values(checks).every((result) => result === 'ok');
      return reply.code(ready ? 200 : 503).send({ ready, checks });
    },
  });

  app.get('/metrics', {
    schema: { summary: 'Prometheus metrics of this process', hide: false },
    handler: async (_request, reply) => {
      reply.header('content-type', deps.registry.contentType);
      return deps.registry.metrics();
    },
  });
};

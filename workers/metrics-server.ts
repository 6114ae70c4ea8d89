import Fastify, { type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

/** GET /metrics in Prometheus text format, for scraping a worker process. */
export async function startMetricsServer(
  registry: Registry,
  port: number,
): Promise<FastifyInstance> {
  const server = Fastify({ logger: false });
  server.get('/metrics', async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  await server.listen({ port, host: '0.0.0.0' });
  return server;
}

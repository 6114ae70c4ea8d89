import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiClient, ApiError } from '../../cli/api-client';

/** A stand-in API that answers 429 rate_limited (Retry-After 1) `refusals` times, then 200. */
async function apiRefusing(
  refusals: number,
): Promise<{ url: string; server: Server; hits: number[] }> {
  const hits: number[] = [];
  const server = createServer((_request, response) => {
    hits.push(Date.now());
    if (hits.length <= refusals) {
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      response.end(JSON.stringify({ code: 'rate_limited', message: 'slow down' }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ intents: [] }));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, hits };
}

describe('the API client and the request limit', () => {
  it('sends a request refused rate_limited again once its Retry-After has passed, saying so', async () => {
    const api = await apiRefusing(1);
    const waits: number[] = [];
    try {
      const client = createApiClient(api.url, 'rly_k_s', (seconds) => waits.push(seconds));
      await expect(client.call('GET', '/v1/intents')).resolves.toMatchObject({ status: 200 });
      expect(waits).toEqual([1]);
      expect(api.hits[1]! - api.hits[0]!).toBeGreaterThanOrEqual(990);
    } finally {
      api.server.close();
    }
  });

  it('gives up after three waits and throws the refusal', async () => {
    const api = await apiRefusing(10);
    try {
      const client = createApiClient(api.url, 'rly_k_s');
      await expect(client.call('GET', '/v1/intents')).rejects.toBeInstanceOf(ApiError);
      expect(api.hits).toHaveLength(4);
    } finally {
      api.server.close();
    }
  }, 15_000);
});

import Redis from 'ioredis';
import { startRedis, type RedisServer } from '../harness/stack/redis';
import { freePort } from '../harness/stack/free-port';
import type { RequestLimits } from '../../api/request-limits';
import { createApiKey } from '../../service/api-keys';
import { setUpTenant } from '../../service/tenants';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { useWorld } from '../harness/test-world';

const world = useWorld({ tenants: { acme: '1', globex: '1' } });
let redisServer: RedisServer;
let keys: Record<'acme' | 'globex' | 'operator', string>;
const apis: ApiUnderTest[] = [];
const clients: Redis[] = [];
beforeAll(async () => {
  redisServer = await startRedis();
  keys = await createKeys(world, ['acme', 'globex']);
});
world.onStop(async () => {
  await Promise.all(apis.map((api) => api.close()));
  for (const client of clients) client.disconnect();
  await redisServer?.stop();
});

/** An API process of its own (its own metrics) with these limits. */
async function apiWith(
  limits: Omit<RequestLimits, 'redis'>,
  redisUrl?: string,
  trustProxy?: readonly string[],
) {
  const redis =
    redisUrl === undefined ? undefined : new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  redis?.on('error', () => undefined);
  if (redis) clients.push(redis);
  // Until its client is connected an API counts on its own (it does not wait for Redis).
  if (redis && redisUrl === redisServer.url)
    await new Promise((ready) => redis.once('ready', ready));
  const api = await startApiWithoutWorkers(
    world,
    {},
    {
      requestLimits: { ...limits, ...(redis && { redis }) },
      ...(trustProxy && { trustProxy }),
    },
  );
  apis.push(api);
  return api;
}

const list = (api: ApiUnderTest, key: string) =>
  fetch(`${api.url}/v1/intents`, { headers: { authorization: `Bearer ${key}` } });

async function limitedCount(api: ApiUnderTest, limit: 'key' | 'ip'): Promise<number> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`relayer_api_requests_limited_total{limit="${limit}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('request limits', () => {
  it("two API processes share one key's limit through Redis: a burst of twice the limit gets the excess 429 with Retry-After, counted once; another key is not touched", async () => {
    const limits = { perKeyPerMinute: 5, perIpPerMinute: 1000 };
    const [a, b] = [await apiWith(limits, redisServer.url), await apiWith(limits, redisServer.url)];
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await list(i % 2 === 0 ? a : b, keys.acme));
    expect(answers.map((answer) => answer.status)).toEqual([
      ...Array<number>(5).fill(200),
      ...Array<number>(5).fill(429),
    ]);
    const refused = answers[9]!;
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-limit')).toBe('5');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect((await limitedCount(a, 'key')) + (await limitedCount(b, 'key'))).toBe(5);
    expect((await list(b, keys.globex)).status).toBe(200);
  });

  it('a key with a limit of its own is held to it, shared through Redis; the default still applies to the others', async () => {
    const limits = { perKeyPerMinute: 1000, perIpPerMinute: 1000 };
    const [a, b] = [await apiWith(limits, redisServer.url), await apiWith(limits, redisServer.url)];
    const { apiKey } = await createApiKey(
      world.database,
      { role: 'tenant', tenantId: 'acme', label: 'a slow client', requestsPerMinute: 3 },
      new Date(),
    );
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await list(i % 2 === 0 ? a : b, apiKey));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers[4]!.headers.get('ratelimit-limit')).toBe('3');
    expect((await list(a, keys.acme)).status).toBe(200);
  });

  it("a tenant's default limit holds each of its keys without one of their own; a key's own wins", async () => {
    const api = await apiWith({ perKeyPerMinute: 1000, perIpPerMinute: 1000 });
    await setUpTenant(
      world.database,
      { id: 'slowco', name: 'Slow', requestsPerMinute: 2 },
      new Date(),
    );
    const keyOf = async (requestsPerMinute?: number) =>
      (
        await createApiKey(
          world.database,
          { role: 'tenant', tenantId: 'slowco', label: 'slow', requestsPerMinute },
          new Date(),
        )
      ).apiKey;
    const [plain, own] = [await keyOf(), await keyOf(4)];
    const statuses = async (key: string, n: number) => {
      const answers = [];
      for (let i = 0; i < n; i++) answers.push((await list(api, key)).status);
      return answers;
    };
    expect(await statuses(plain, 3)).toEqual([200, 200, 429]);
    expect(await statuses(own, 5)).toEqual([200, 200, 200, 200, 429]);
    expect(await statuses(keys.acme, 3)).toEqual([200, 200, 200]);
  });

  it('limits an address before its key is looked up: past the limit, invalid keys get 429, not 401', async () => {
    const api = await apiWith({ perKeyPerMinute: 1000, perIpPerMinute: 4 });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await list(api, `rly_bad${i}_secret`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    expect(await limitedCount(api, 'ip')).toBe(2);
  });

  it('counts the client a trusted proxy names (TRUST_PROXY), and only then: anyone else could write X-Forwarded-For', async () => {
    const from = (api: ApiUnderTest, client: string) =>
      fetch(`${api.url}/v1/intents`, {
        headers: { authorization: 'Bearer rly_bad_secret', 'x-forwarded-for': client },
      }).then((response) => response.status);
    const behindBalancer = await apiWith({ perKeyPerMinute: 1000, perIpPerMinute: 2 }, undefined, [
      '127.0.0.1',
    ]);
    const clients = ['203.0.113.7', '203.0.113.7', '203.0.113.7', '198.51.100.2'];
    const answers = [];
    for (const client of clients) answers.push(await from(behindBalancer, client));
    expect(answers).toEqual([401, 401, 429, 401]);
    const trustingNobody = await apiWith({ perKeyPerMinute: 1000, perIpPerMinute: 2 });
    const unbelieved = [];
    for (const client of clients) unbelieved.push(await from(trustingNobody, client));
    expect(unbelieved).toEqual([401, 401, 429, 429]);
  });

  it('counts per process while Redis does not answer', async () => {
    const closedPort = await freePort();
    const api = await apiWith(
      { perKeyPerMinute: 3, perIpPerMinute: 1000 },
      `redis://127.0.0.1:${closedPort}`,
    );
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await list(api, keys.globex)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});

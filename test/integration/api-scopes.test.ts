import { ApiScope, apiScopes, operatorKeyScopes, tenantKeyScopes } from '../../domain/api-scopes';
import { createApiKey, listKeys, rotateApiKey } from '../../service/api-keys';
import { databaseSnapshot, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { useWorld } from '../harness/test-world';

const world = useWorld({ tenants: { acme: '10' } });
let api: ApiUnderTest;
beforeAll(async () => {
  api = await startApiWithoutWorkers(world);
});
world.onStop(async () => {
  await api?.close();
});

/** A key of the kind that may hold `scope`, with `scopes`. */
async function keyWith(scopes: ApiScope[], boundToTenant: boolean, expiresAt?: Date) {
  const created = await createApiKey(
    world.database,
    boundToTenant
      ? { role: 'tenant', tenantId: 'acme', label: 'scopes test', scopes, expiresAt }
      : { role: 'operator', label: 'scopes test', scopes, expiresAt },
    new Date(),
  );
  return created;
}

/** A request to `url` (its parameters filled in) with `key`: the status and the body's code. */
async function call(method: string, url: string, key: string) {
  const path = url
    .replace(':chainId', String(world.anvil.chainId))
    .replace(':address', world.wallets[0]!)
    .replace(':tenantId', 'acme')
    .replace(':eventId', 'evt_none')
    .replace(':id', 'pi_none');
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'idempotency-key': 'scopes-test',
      ...(method === 'GET' ? {} : { 'content-type': 'application/json' }),
    },
    ...(method === 'GET' ? {} : { body: '{}' }),
  });
  const body = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
  return { status: response.status, code: body.code, message: body.message };
}

describe('scoped API keys', () => {
  it('every route names a scope, and both kinds of key can hold the reading ones', () => {
    expect(api.api.routes.length).toBeGreaterThanOrEqual(20);
    for (const route of api.api.routes) expect(apiScopes).toContain(route.scope);
    expect(tenantKeyScopes).toContain(ApiScope.intentsRead);
    expect(operatorKeyScopes).toContain(ApiScope.intentsRead);
  });

  it("the OpenAPI document names each operation's scope", async () => {
    type Operations = Record<string, Record<string, { security?: unknown }>>;
    const { paths } = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
      paths: Operations;
    };
    for (const route of api.api.routes) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      expect({
        route: `${route.method} ${route.url}`,
        security: paths[path]?.[route.method.toLowerCase()]?.security,
      }).toEqual({
        route: `${route.method} ${route.url}`,
        security: [{ apiKey: [route.scope] }],
      });
    }
  });

  it('every route refuses a key without its scope: 403 scope_missing naming it, nothing written', async () => {
    const refused: string[] = [];
    for (const route of api.api.routes) {
      for (const boundToTenant of [true, false]) {
        const kind = boundToTenant ? tenantKeyScopes : operatorKeyScopes;
        if (!kind.includes(route.scope)) continue;
        // Every scope the kind may hold but this one: only the missing scope refuses it.
        const { apiKey } = await keyWith(
          kind.filter((scope) => scope !== route.scope),
          boundToTenant,
        );
        const before = await databaseSnapshot(world);
        const answer = await call(route.method, route.url, apiKey);
        expect({ route: `${route.method} ${route.url}`, ...answer }).toEqual({
          route: `${route.method} ${route.url}`,
          status: 403,
          code: 'scope_missing',
          message: expect.stringContaining(`needs the scope ${route.scope}`),
        });
        expect(await databaseSnapshot(world)).toEqual(before);
        refused.push(route.url);
      }
    }
    expect(new Set(refused).size).toBe(new Set(api.api.routes.map((r) => r.url)).size);
  });

  it('a key with the scope gets past it on every route', async () => {
    const tenant = (await keyWith([...tenantKeyScopes], true)).apiKey;
    const operator = (await keyWith([...operatorKeyScopes], false)).apiKey;
    for (const route of api.api.routes) {
      const key = tenantKeyScopes.includes(route.scope) ? tenant : operator;
      const answer = await call(route.method, route.url, key);
      expect({ route: `${route.method} ${route.url}`, code: answer.code }).not.toEqual({
        route: `${route.method} ${route.url}`,
        code: 'scope_missing',
      });
      expect(answer.status).not.toBe(401);
    }
  });

  it('a read-only key reads and cannot submit', async () => {
    const { apiKey } = await keyWith([ApiScope.intentsRead], true);
    expect((await call('GET', '/v1/intents', apiKey)).status).toBe(200);
    expect(await call('POST', '/v1/intents', apiKey)).toMatchObject({
      status: 403,
      code: 'scope_missing',
      message: 'this needs the scope intents:write; the key has: intents:read',
    });
  });

  it('no key gets a scope its kind may not hold, whoever makes it', async () => {
    const before = await databaseSnapshot(world);
    await expect(keyWith([ApiScope.review], true)).rejects.toThrow(
      'invalid key request: scopes: scope "review" is not for a tenant key',
    );
    expect(await databaseSnapshot(world)).toEqual(before);
  });

  it('an expired key is a 401 that says so and what to do, and names no successor it has not', async () => {
    const { apiKey } = await keyWith([ApiScope.intentsRead], true, new Date(Date.now() - 1000));
    const refused = await call('GET', '/v1/intents', apiKey);
    expect(refused).toMatchObject({
      status: 401,
      code: 'unauthorized',
      message: expect.stringMatching(/^the API key has expired: ask an operator for a new one/),
    });
    expect((refused as { message: string }).message).not.toContain('replaced');
  });

  it('a rotated key works until its grace ends, its successor from the start; a key is rotated once', async () => {
    const old = await keyWith([ApiScope.intentsRead], true);
    const graced = await rotateApiKey(world.database, old.id, 3_600_000, new Date());
    expect(graced).toBeDefined();
    expect((await call('GET', '/v1/intents', old.apiKey)).status).toBe(200);
    expect((await call('GET', '/v1/intents', graced!.apiKey)).status).toBe(200);
    expect(await rotateApiKey(world.database, old.id, 3_600_000, new Date())).toBeUndefined();

    const listed = await listKeys(world.database);
    const successor = listed.find((key) => key.id === graced!.id)!;
    expect(successor).toMatchObject({ tenantId: 'acme', scopes: ['intents:read'] });
    expect(listed.find((key) => key.id === old.id)).toMatchObject({
      replacedBy: graced!.id,
      expiresAt: graced!.oldKeyUntil,
    });

    // A rotation whose grace ended a second ago.
    const ended = await keyWith([ApiScope.intentsRead], true);
    await rotateApiKey(world.database, ended.id, 1000, new Date(Date.now() - 2000));
    expect(await call('GET', '/v1/intents', ended.apiKey)).toMatchObject({
      status: 401,
      message: expect.stringMatching(
        /^the API key was rotated and its grace has ended: use the key that replaced it/,
      ),
    });
  });

  it("notes a key's last use, at most once a minute", async () => {
    const { id, apiKey } = await keyWith([ApiScope.intentsRead], true);
    const lastUse = async () =>
      (await listKeys(world.database)).find((key) => key.id === id)!.lastUsedAt;
    expect(await lastUse()).toBeNull();
    await call('GET', '/v1/intents', apiKey);
    const first = await lastUse();
    expect(first).not.toBeNull();
    await call('GET', '/v1/intents', apiKey);
    expect(await lastUse()).toBe(first);
  });
});

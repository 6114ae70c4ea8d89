import fc from 'fast-check';
import { seededRandom } from '../harness/fault-settings';
import { parseNewIntent } from '../../domain/intent-request';
import { RejectionCode } from '../../domain/rejections';
import {
  createKeys,
  databaseSnapshot,
  paymentBody,
  startApiWithoutWorkers,
  type ApiUnderTest,
} from '../harness/api';
import { useWorld } from '../harness/test-world';

const world = useWorld({ tenants: { acme: '10' } });
let api: ApiUnderTest;
let keys: Record<'acme' | 'operator', string>;
let existingId: string;
beforeAll(async () => {
  api = await startApiWithoutWorkers(world);
  keys = await createKeys(world, ['acme']);
  existingId = (await api.as(keys.acme).submit(paymentBody(world), 'existing')).body.id;
});
world.onStop(async () => {
  await api?.close();
});

const printable = fc.string({
  unit: fc.constantFrom(...'abcXYZ019 _-:/.@%{}"\'\\'.split('')),
  maxLength: 40,
});

/** A body that the API must refuse: random JSON, broken JSON, or a valid body with one flaw. */
const submitBody = fc
  .oneof(
    fc.jsonValue().map((value) => JSON.stringify(value)),
    printable,
    fc.constantFrom('', '{', '{"amount":', 'null', '[]', '{"chainId":1e400}'),
    fc
      .record({
        field: fc.constantFrom('chainId', 'from', 'to', 'amount', 'tenantId', 'extra'),
        value: fc.oneof(fc.jsonValue(), fc.constant(undefined)),
      })
      .map(({ field, value }) => ({ ...paymentBody(world), [field]: value })),
  )
  .map((body) => (typeof body === 'string' ? body : JSON.stringify(body)));

/** Mostly real keys, so most requests get past authentication to the checks behind it. */
const authorization = fc.oneof(
  fc.constant(undefined),
  printable.map((s) => `Bearer ${s}`),
  printable,
  fc.constant(`Bearer rly_0123456789abcdef_${'A'.repeat(43)}`),
  {
    weight: 6,
    arbitrary: fc
      .constantFrom('acme', 'operator')
      .map((who) => `Bearer ${keys[who as 'acme' | 'operator']}`),
  },
);

const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'image/png',
);

const randomId = fc.oneof(printable, fc.string({ maxLength: 200 }));

/** Requests that must all be refused, whoever sends them. */
const request = fc.oneof(
  fc.record({
    method: fc.constant('POST'),
    path: fc.constant('/v1/intents'),
    body: submitBody,
    idempotencyKey: fc.oneof(fc.constant(undefined), fc.constant('fuzz-key'), printable),
  }),
  fc.record({
    method: fc.constant('GET'),
    path: randomId.map((id) => `/v1/intents/${encodeURIComponent(id)}`),
  }),
  fc.record({
    method: fc.constant('GET'),
    path: fc
      .record({
        // Every value is wrong: the alphabet of `printable` spells no status and no cursor, and
        // a printable limit is kept only if the API's coercion would not read it as 1-200.
        status: fc.oneof(printable, fc.constant('authorised')),
        limit: fc.oneof(
          fc.integer({ min: -5, max: 0 }),
          fc.integer({ min: 201 }),
          printable.filter((value) => !isValidLimit(value)),
        ),
        cursor: printable.filter((s) => s.length > 0),
        colour: printable,
      })
      .chain((query) => fc.subarray(Object.entries(query), { minLength: 1 }))
      .map((entries) => {
        const query = new URLSearchParams();
        for (const [key, value] of entries) query.append(key, String(value));
        return `/v1/intents?${query}`;
      }),
  }),
  fc.record({
    method: fc.constant('POST'),
    path: randomId.map((id) => `/v1/intents/${encodeURIComponent(id)}/cancel`),
  }),
  fc.record({
    method: fc.constant('GET'),
    path: randomId.map((id) => `/v1/intents/${encodeURIComponent(id)}/audit`),
  }),
  fc.record({
    method: fc.constant('GET'),
    path: randomId.map((id) => `/v1/intents/${encodeURIComponent(id)}/attempts`),
  }),
  fc.record({
    method: fc.constant('POST'),
    path: fc
      .tuple(
        fc.oneof(randomId, fc.constant('EXISTING')),
        fc.constantFrom('confirm', 'fail', 'retry'),
      )
      .map(([id, action]) => `/v1/intents/${encodeURIComponent(id)}/review/${action}`),
    body: fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      printable,
      fc.constant('{"txHash":"0x12"}'),
    ),
  }),
  fc.record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
    path: printable.map((p) => `/v2/${encodeURIComponent(p)}`),
  }),
);

/** As the list schema reads a limit (`z.coerce.number().int().min(1).max(200)`). */
const isValidLimit = (value: string): boolean => {
  const limit = Number(value);
  return Number.isInteger(limit) && limit >= 1 && limit <= 200;
};

/**
 * A header value as the server receives it: HTTP drops the whitespace around a field value
 * (RFC 9110 §5.5), so `" key "` arrives as a valid `"key"`.
 */
const asSentInHeader = (value: string): string => value.replace(/^[\t ]+|[\t ]+$/g, '');

const isValidSubmit = (body: string): boolean => {
  try {
    parseNewIntent({ ...(JSON.parse(body) as object), tenantId: 'acme' });
    return true;
  } catch {
    return false;
  }
};

describe('the API under random malformed requests', () => {
  it('answers every one with a 4xx and a machine-readable code, never a 5xx, and writes nothing', async () => {
    const before = await databaseSnapshot(world);
    const codes = new Set<string>(Object.values(RejectionCode));
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(request, authorization, contentType, async (req, auth, type) => {
        const body = 'body' in req ? req.body : undefined;
        fc.pre(
          !(
            req.path === '/v1/intents' &&
            body !== undefined &&
            isValidSubmit(body) &&
            'idempotencyKey' in req &&
            req.idempotencyKey !== undefined &&
            /^[\x21-\x7e]{1,255}$/.test(asSentInHeader(req.idempotencyKey))
          ),
        );
        const headers: Record<string, string> = {};
        if (auth !== undefined) headers.authorization = auth;
        if (type !== undefined && body !== undefined) headers['content-type'] = type;
        if ('idempotencyKey' in req && req.idempotencyKey !== undefined)
          headers['idempotency-key'] = req.idempotencyKey;
        const response = await fetch(new URL(req.path.replace('EXISTING', existingId), api.url), {
          method: req.method,
          headers,
          body: req.method === 'GET' ? undefined : body,
        });
        const text = await response.text();
        let code: unknown;
        try {
          code = (JSON.parse(text) as { code?: unknown }).code;
        } catch {
          code = undefined;
        }
        seen.set(
          `${response.status} ${String(code)}`,
          (seen.get(`${response.status} ${String(code)}`) ?? 0) + 1,
        );
        expect({
          status: response.status >= 400 && response.status < 500,
          code: codes.has(String(code)),
        }).toEqual({
          status: true,
          code: true,
        });
      }),
      { numRuns: 400, seed: seededRandom('api fuzz').seed },
    );
    expect(await databaseSnapshot(world)).toEqual(before);
    // The generators reached the refusals that matter, not only one kind.
    console.log(`answers seen: ${JSON.stringify(Object.fromEntries(seen))}`);
    for (const expected of ['401 unauthorized', '400 invalid_request', '404 not_found']) {
      expect(seen.get(expected) ?? 0).toBeGreaterThan(0);
    }
  });
});

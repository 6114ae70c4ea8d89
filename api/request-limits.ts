import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Redis from 'ioredis';
import { Counter, type Registry } from 'prom-client';
import { RejectionCode } from '../domain/rejections';
import { callerOf, keyOf } from './auth';
import { ApiRejection } from './error-responses';

/** How many requests a minute a key, and an address before its key is checked, may make. */
export interface RequestLimits {
  /** For a key without a limit of its own (`keys create --requests-per-minute`). */
  perKeyPerMinute: number;
  perIpPerMinute: number;
  /** Shared by every API process when given; else (or while it is unreachable) per process. */
  redis?: Redis;
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;
type LimitKind = 'key' | 'ip';

const minuteMs = 60_000;

/** A client in its first connect (the process just started) is no outage to report. */
const stillConnecting = new Set(['wait', 'connecting', 'connect']);

/**
 * The request limits, kept by @fastify/rate-limit (a fixed window a minute, in Redis when it is
 * given so every API process counts together): `byIp` runs before the key is looked up, `byKey`
 * after. A request over a limit is 429 `rate_limited` with Retry-After and the RateLimit-*
 * headers. When Redis does not answer, each process counts on its own and says so, once per
 * outage.
 */
export async function requestLimits(
  app: FastifyInstance,
  limits: RequestLimits,
  registry: Registry,
): Promise<Record<LimitKind, (request: FastifyRequest, reply: FastifyReply) => Promise<void>>> {
  const limited = new Counter({
    name: 'relayer_api_requests_limited_total',
    help: 'Requests refused 429 rate_limited, by limit (key or ip) and key id (ip: none)',
    labelNames: ['limit', 'key_id'],
    registers: [registry],
  });
  const options = {
    key: {
      max: (request: FastifyRequest) => keyOf(request).requestsPerMinute ?? limits.perKeyPerMinute,
      keyGenerator: (request: FastifyRequest) => `key:${callerOf(request).keyId}`,
    },
    ip: {
      max: limits.perIpPerMinute,
      keyGenerator: (request: FastifyRequest) => `ip:${request.ip}`,
    },
  };
  const local = await limitersIn(app, {}, options);
  const shared = limits.redis
    ? await limitersIn(app, { redis: limits.redis, nameSpace: 'relayer-api-limit:' }, options)
    : undefined;
  let sharedDown = false;
  /** Says once when the limits stop being shared and once when they are again. */
  const noteShared = (request: FastifyRequest, up: boolean, why?: string) => {
    if (up === !sharedDown) return;
    sharedDown = !up;
    request.log.warn(
      up
        ? 'request limits: Redis answers again, limits shared'
        : `request limits: Redis does not answer (${why}); each API process counts on its own until it does`,
    );
  };

  const check = (kind: LimitKind) => async (request: FastifyRequest, reply: FastifyReply) => {
    let result: Awaited<ReturnType<Limiter>> | undefined;
    // A client that is not connected answers only after its reconnect attempts: not waited for.
    if (shared && limits.redis?.status === 'ready') {
      try {
        result = await shared[kind](request);
        noteShared(request, true);
      } catch (error) {
        noteShared(request, false, (error as Error).message);
      }
    } else if (shared && !stillConnecting.has(limits.redis?.status ?? '')) {
      noteShared(request, false, `connection ${limits.redis?.status}`);
    }
    result ??= await local[kind](request);
    if (result.isAllowed || !result.isExceeded) return;
    limited.inc({ limit: kind, key_id: kind === 'key' ? callerOf(request).keyId : '' });
    reply.header('ratelimit-limit', result.max);
    reply.header('ratelimit-remaining', 0);
    reply.header('ratelimit-reset', result.ttlInSeconds);
    throw new ApiRejection(
      RejectionCode.rateLimited,
      `this ${kind === 'key' ? 'key' : 'address'} made more than ${result.max} requests this minute: come back in ${result.ttlInSeconds} s`,
      { retryAfterMs: result.ttl },
    );
  };
  return { key: check('key'), ip: check('ip') };
}

/** The two limiters on one store: the plugin keeps one store per scope it is registered in. */
async function limitersIn(
  app: FastifyInstance,
  store: { redis?: Redis; nameSpace?: string },
  options: Record<LimitKind, Parameters<FastifyInstance['createRateLimit']>[0]>,
): Promise<Record<LimitKind, Limiter>> {
  let limiters: Record<LimitKind, Limiter> | undefined;
  await app.register(async (scope) => {
    await scope.register(rateLimit, { global: false, timeWindow: minuteMs, ...store });
    limiters = {
      key: scope.createRateLimit({ ...options.key, timeWindow: minuteMs }),
      ip: scope.createRateLimit({ ...options.ip, timeWindow: minuteMs }),
    };
  });
  return limiters!;
}

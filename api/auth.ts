import { BrokenInvariantError } from '../domain/errors';
import type { FastifyRequest } from 'fastify';
import type { ApiScope } from '../domain/api-scopes';
import { RejectionCode } from '../domain/rejections';
import { authenticate, type AuthenticatedKey, type KeyRefusal } from '../service/api-keys';
import type { Caller } from '../service/caller';
import type { ServiceDependencies } from '../service/dependencies';
import { ApiRejection } from './error-responses';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key the request came with: who it acts for, its scopes, its request limit. */
    apiKey?: AuthenticatedKey;
  }
  interface FastifyContextConfig {
    /** The scope a key needs for the route; every /v1 route names one (see requireScope). */
    scope?: ApiScope;
  }
}

/** The 401's words for each refusal: what happened, and what to do. */
const refused: Record<KeyRefusal, string> = {
  invalid: 'the API key is not valid (unknown, revoked or malformed)',
  expired:
    'the API key has expired: ask an operator for a new one (relayer keys create), or to rotate a key before it expires',
  replaced:
    'the API key was rotated and its grace has ended: use the key that replaced it (relayer keys list shows which)',
};

/**
 * `Authorization: Bearer rly_…`, checked before the body is even read, so a request without a
 * valid key is a 401 that touched nothing.
 */
export const requireApiKey =
  ({ database, clock }: Pick<ServiceDependencies, 'database' | 'clock'>) =>
  async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined) {
      throw new ApiRejection(
        RejectionCode.unauthorized,
        'no API key: send "Authorization: Bearer <key>"',
      );
    }
    const presented = /^Bearer (\S+)$/i.exec(header)?.[1];
    const key =
      presented === undefined
        ? 'invalid'
        : await authenticate(database, presented, clock?.() ?? new Date());
    if (typeof key === 'string') throw new ApiRejection(RejectionCode.unauthorized, refused[key]);
    request.apiKey = key;
  };

/**
 * After the key: a key without the route's scope is 403 scope_missing naming it, before the body
 * is read or anything is written.
 */
export async function requireScope(request: FastifyRequest): Promise<void> {
  // Every /v1 route names one: buildApi refuses to register a route that does not.
  const needed = request.routeOptions.config.scope!;
  const { scopes } = keyOf(request);
  if (scopes.has(needed)) return;
  const held = [...scopes].join(', ') || 'none';
  throw new ApiRejection(
    RejectionCode.scopeMissing,
    `this needs the scope ${needed}; the key has: ${held}`,
  );
}

export function keyOf(request: FastifyRequest): AuthenticatedKey {
  if (!request.apiKey) throw new BrokenInvariantError({ rule: 'route is missing requireApiKey' });
  return request.apiKey;
}

export const callerOf = (request: FastifyRequest): Caller => keyOf(request).caller;

export function tenantOf(request: FastifyRequest): Extract<Caller, { role: 'tenant' }> {
  const caller = callerOf(request);
  if (caller.role !== 'tenant') {
    throw new ApiRejection(RejectionCode.forbidden, 'this needs a tenant key');
  }
  return caller;
}

export function operatorOf(request: FastifyRequest): Extract<Caller, { role: 'operator' }> {
  const caller = callerOf(request);
  if (caller.role !== 'operator') {
    throw new ApiRejection(RejectionCode.forbidden, 'this needs an operator key');
  }
  return caller;
}

import type { FastifyRequest } from 'fastify';
import { RejectionCode } from '../domain/rejections';
import { authenticate } from '../service/api-keys';
import type { Caller } from '../service/caller';
import type { ServiceDependencies } from '../service/dependencies';
import { ApiRejection } from './error-responses';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/**
 * `Authorization: Bearer rly_…`, checked before the body is even read, so a request without a
 * valid key is a 401 that touched nothing.
 */
export const requireApiKey =
  (database: ServiceDependencies['database']) =>
  async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    const presented = typeof header === 'string' ? /^Bearer (\S+)$/i.exec(header)?.[1] : undefined;
    const caller = presented === undefined ? undefined : await authenticate(database, presented);
    if (!caller) {
      throw new ApiRejection(
        RejectionCode.unauthorized,
        header === undefined
          ? 'no API key: send "Authorization: Bearer <key>"'
          : 'the API key is not valid (unknown, revoked or malformed)',
      );
    }
    request.caller = caller;
  };

export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error('route is missing requireApiKey');
  return request.caller;
}

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

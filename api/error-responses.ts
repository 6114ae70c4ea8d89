import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { RelayerError, type FieldIssue } from '../domain/errors';
import { rejectionCodeOf } from '../domain/error-catalogue';
import { httpStatusOf, RejectionCode } from '../domain/rejections';

/** The body of every answer that is not a success: `code` is what a client branches on. */
export const errorBodySchema = z
  .object({
    code: z.enum(Object.values(RejectionCode) as [RejectionCode, ...RejectionCode[]]),
    message: z.string(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    details: z.record(z.string(), z.unknown()).optional(),
    advice: z.string().optional().describe('what to do about it, where the relayer knows'),
  })
  .meta({ id: 'Error' });

/** What any route may answer besides its own: a refusal (4xx) or the process closing (503). */
export const errorResponses = { '4XX': errorBodySchema, 503: errorBodySchema };
export type ErrorBody = z.infer<typeof errorBodySchema>;

export class ApiRejection extends Error {
  constructor(
    readonly code: RejectionCode,
    message: string,
    readonly extra: Pick<ErrorBody, 'issues' | 'details' | 'advice'> & {
      retryAfterMs?: number;
    } = {},
  ) {
    super(message);
  }
}

/** Fastify's own request errors (the body could not be read at all), in our vocabulary. */
const fastifyCodes: Record<string, RejectionCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: RejectionCode.unsupportedMediaType,
  FST_ERR_CTP_BODY_TOO_LARGE: RejectionCode.bodyTooLarge,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: RejectionCode.malformedBody,
  FST_ERR_CTP_EMPTY_JSON_BODY: RejectionCode.malformedBody,
  FST_ERR_CTP_INVALID_JSON_BODY: RejectionCode.malformedBody,
};

export function toRejection(error: unknown): ApiRejection {
  if (error instanceof ApiRejection) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issues: FieldIssue[] = error.validation.map((issue) => ({
      field: [error.validationContext, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
      message: issue.message ?? 'is invalid',
    }));
    return new ApiRejection(
      RejectionCode.invalidRequest,
      `invalid request: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
      { issues },
    );
  }
  if (error instanceof RelayerError) {
    const code = rejectionCodeOf(error.name);
    if (code) {
      const { issues, ...details } = error.details as { issues?: FieldIssue[] };
      return new ApiRejection(code, error.message, {
        issues,
        details: Object.keys(details).length > 0 ? details : undefined,
        retryAfterMs: error.retryAfterMs,
        advice: error.advice,
      });
    }
  }
  const fastifyError = error as Partial<FastifyError>;
  const statusCode = fastifyError.statusCode ?? 500;
  if (statusCode >= 400 && statusCode < 500) {
    const code = fastifyCodes[fastifyError.code ?? ''] ?? RejectionCode.malformedBody;
    return new ApiRejection(code, fastifyError.message ?? 'the request could not be read');
  }
  return new ApiRejection(RejectionCode.internalError, 'internal error (logged by the relayer)');
}

export function sendRejection(
  reply: FastifyReply,
  rejection: ApiRejection,
): FastifyReply | Promise<FastifyReply> {
  const { retryAfterMs, issues, details, advice } = rejection.extra;
  if (retryAfterMs !== undefined) reply.header('retry-after', Math.ceil(retryAfterMs / 1000));
  const body: ErrorBody = {
    code: rejection.code,
    message: rejection.message,
    issues,
    details,
    advice,
  };
  // Our own body, built right here: the route's response schema has nothing to add to it.
  return reply
    .code(httpStatusOf(rejection.code))
    .type('application/json')
    .serializer(JSON.stringify)
    .send(body);
}

export const logIfInternal = (request: FastifyRequest, error: unknown, rejection: ApiRejection) => {
  if (rejection.code === RejectionCode.internalError) request.log.error({ err: error }, 'internal');
};

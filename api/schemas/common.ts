import { z } from 'zod';
import { reasonCodes, type ReasonCode } from '../../domain/reason-codes';

/** A 0x-prefixed hex string: an address, a hash, signed bytes. */
export const hex = z.string().regex(/^0x[0-9a-fA-F]*$/);

/**
 * A POST that takes nothing: no body (fastify: null) or `{}`; anything in it is refused, not
 * ignored.
 */
export const noBodySchema = z.strictObject({}).nullish();

export const idParamsSchema = z.strictObject({ id: z.string().min(1).max(64) });

/** Printable ASCII, as most payment APIs take it; a UUID is a good choice. */
export const idempotencyHeadersSchema = z.object({
  'idempotency-key': z
    .string({ error: 'the Idempotency-Key header is required' })
    .regex(/^[\x21-\x7e]{1,255}$/, { error: '1-255 printable ASCII characters, no spaces' }),
});

/** One of the closed set of reason codes (docs/api.md lists them with their meaning). */
export const reasonCodeSchema = z.enum(reasonCodes as [ReasonCode, ...ReasonCode[]]);

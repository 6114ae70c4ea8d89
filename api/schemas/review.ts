import { z } from 'zod';

/** The bodies of an operator's review decisions. */

export const resolveConfirmedBodySchema = z.strictObject({
  txHash: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: 'must be a transaction hash (0x + 64 hex digits)' })
    .transform((value) => value.toLowerCase() as `0x${string}`),
  note: z.string().max(1000).optional(),
});

export const resolveFailedBodySchema = z.strictObject({
  reason: z.string().trim().min(1, { error: 'say why the payment failed' }).max(1000),
});

export const noteBodySchema = z.strictObject({ note: z.string().max(1000).optional() }).nullish();

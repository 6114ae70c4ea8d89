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

const weiPerGas = (field: string) =>
  z
    .string({ error: `${field} must be a string of wei per gas, e.g. "30000000000" (30 gwei)` })
    .regex(/^[1-9][0-9]{0,30}$/, {
      error: `${field} must be a whole number of wei per gas above 0, digits only`,
    });

/** A speed-up's least bid (wei per gas); none named: the least a replacement must bid. */
export const speedUpBodySchema = z
  .strictObject({
    maxFeePerGas: weiPerGas('maxFeePerGas').optional(),
    maxPriorityFeePerGas: weiPerGas('maxPriorityFeePerGas').optional(),
    note: z.string().max(1000).optional(),
  })
  .refine(
    ({ maxFeePerGas, maxPriorityFeePerGas }) =>
      !maxFeePerGas ||
      !maxPriorityFeePerGas ||
      BigInt(maxPriorityFeePerGas) <= BigInt(maxFeePerGas),
    {
      error: 'maxPriorityFeePerGas must not be above maxFeePerGas',
      path: ['maxPriorityFeePerGas'],
    },
  )
  .nullish();

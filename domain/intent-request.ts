import { getAddress, isAddress, zeroAddress } from 'viem';
import { z } from 'zod';
import { InvalidIntentError } from './errors';

const maxUint256 = 2n ** 256n - 1n;

const address = (field: string) =>
  z
    .string({ error: `${field} must be a 0x-prefixed hex address string` })
    .refine((value) => isAddress(value, { strict: true }), {
      error: `${field} is not a valid address (40 hex digits, with a correct checksum if mixed-case)`,
    })
    .transform((value) => getAddress(value));

export const tenantIdSchema = z
  .string({ error: 'tenantId must be a string' })
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, {
    error: 'tenantId must be 1-63 lowercase letters, digits, "-" or "_"',
  });

/** A payment as a tenant asks for it; the API takes the tenant from the caller's key. */
export const newIntentBodySchema = z.strictObject({
  chainId: z
    .number({ error: 'chainId must be a number' })
    .int({ error: 'chainId must be an integer' })
    .positive({ error: 'chainId must be positive' }),
  /** Optional: without it the relayer chooses the wallet when it signs. */
  from: address('from').optional(),
  to: address('to').refine((to) => to !== zeroAddress, {
    error: 'to is the zero address: funds sent there are burned',
  }),
  amount: z
    .string({ error: 'amount must be a string of wei (an integer), e.g. "250000000000000000"' })
    .regex(/^(0|[1-9][0-9]*)$/, { error: 'amount must be a whole number of wei, digits only' })
    .transform((value) => BigInt(value))
    .refine((value) => value > 0n, { error: 'amount must be greater than zero' })
    .refine((value) => value <= maxUint256, { error: 'amount does not fit in 256 bits' }),
});

const newIntentRequestSchema = newIntentBodySchema.extend({ tenantId: tenantIdSchema });

export type NewIntent = z.output<typeof newIntentRequestSchema>;

/** Checks the shape of a request; checks that need the database live in service/submit-intent.ts. */
export function parseNewIntent(input: unknown): NewIntent {
  const result = newIntentRequestSchema.safeParse(input);
  if (!result.success) {
    throw new InvalidIntentError(
      result.error.issues.map((issue) => ({
        field: issue.path.join('.') || '(body)',
        message: issue.message,
      })),
    );
  }
  return result.data;
}

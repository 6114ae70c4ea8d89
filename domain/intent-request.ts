import { getAddress, isAddress } from 'viem/utils';
import { z } from 'zod';
import { nativeAsset } from './asset';
import { callDataSchema, contractCallSchema } from './contract-call';
import { deadlineFields } from './intent-deadlines';
import { callerReferenceFields, sameCallerReference } from './caller-reference';
import { intentPriorities } from './intent-priority';
import type { Intent } from './intent';
import { InvalidIntentError } from './errors';
import { plainDecimal } from './plain-decimal';

const maxUint256 = 2n ** 256n - 1n;
const callIsNative = 'a call sends the native coin: token payouts are transfers';

const wholeBaseUnits = (field: string) =>
  z
    .string({
      error: `${field} must be a string of base units (wei, or the token's smallest unit), e.g. "250000000000000000"`,
    })
    .regex(/^(0|[1-9][0-9]*)$/, {
      error: `${field} must be a whole number of base units, digits only`,
    })
    .transform((value) => BigInt(value))
    .refine((value) => value <= maxUint256, { error: `${field} does not fit in 256 bits` });

const baseUnits = wholeBaseUnits('amount').refine((value) => value > 0n, {
  error: 'amount must be greater than zero',
});

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
  to: address('to').refine((to) => BigInt(to) !== 0n, {
    error: 'to is the zero address: funds sent there are burned',
  }),
  /**
   * What to pay in: `native` (the default, the chain's coin), or the alias (or address) of a
   * token registered for the chain.
   */
  asset: z
    .string({ error: 'asset must be a string: "native", or a registered token\'s alias' })
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$|^0x[0-9a-fA-F]{40}$/, {
      error:
        'asset must be "native", a token alias (1-32 letters, digits, ".", "_", "-") or an address',
    })
    .default(nativeAsset),
  amount: baseUnits,
  ...deadlineFields,
  priority: z
    .enum(intentPriorities, { error: 'priority must be urgent, normal or bulk' })
    .optional(),
  /** Its own fee ceiling (wei per gas): no bid above it; above it the payment waits unsigned. */
  maxFeePerGas: wholeBaseUnits('maxFeePerGas')
    .refine((value) => value > 0n, { error: 'maxFeePerGas must be greater than zero' })
    .optional(),
  ...callerReferenceFields,
});

/** An amount as a decimal of the asset ("12.5" of a 6-decimal token), converted at admission. */
export const decimalAmountField = z
  .string({ error: 'decimalAmount must be a string, e.g. "12.5"' })
  .regex(plainDecimal, {
    error: 'decimalAmount must be a plain decimal, e.g. "12.5" (no sign, no exponent)',
  });

/**
 * An intent body as the HTTP API takes it: a transfer, its amount in base units (`amount`) or as
 * a decimal of the asset (`decimalAmount`: "12.5" of a 6-decimal token), one of the two; or a
 * contract call (`call`, domain/contract-call.ts) with the native `value` it sends (default 0).
 */
export const intentBodySchema = newIntentBodySchema
  .extend({
    amount: baseUnits.optional(),
    decimalAmount: decimalAmountField.optional(),
    call: contractCallSchema.optional(),
    value: wholeBaseUnits('value').optional(),
  })
  .superRefine((body, ctx) => {
    const refuse = (field: string, message: string) =>
      ctx.issues.push({ code: 'custom', message, input: body, path: [field] });
    if (body.call === undefined) {
      if (body.value !== undefined)
        refuse('value', 'value goes with a call: a transfer has amount');
      if ((body.amount === undefined) === (body.decimalAmount === undefined))
        refuse('amount', 'give amount (base units) or decimalAmount, exactly one of them');
      return;
    }
    for (const field of ['amount', 'decimalAmount'] as const) {
      if (body[field] !== undefined)
        refuse(field, `a call sends value (native base units), not ${field}`);
    }
    if (body.asset !== nativeAsset) refuse('asset', callIsNative);
  });
export type IntentBody = z.output<typeof intentBodySchema>;

const newIntentRequestSchema = newIntentBodySchema
  .extend({
    tenantId: tenantIdSchema,
    amount: wholeBaseUnits('amount'),
    /** A contract call's data (its value is `amount`, native); absent: a transfer. */
    callData: callDataSchema.optional(),
  })
  .superRefine((request, ctx) => {
    if (request.callData === undefined && request.amount === 0n)
      ctx.issues.push({
        code: 'custom',
        message: 'amount must be greater than zero',
        input: request,
        path: ['amount'],
      });
    if (request.callData !== undefined && request.asset !== nativeAsset)
      ctx.issues.push({
        code: 'custom',
        message: callIsNative,
        input: request,
        path: ['asset'],
      });
  });

/** A checked request; `asset` left out means the native coin. */
export type NewIntent = Omit<z.output<typeof newIntentRequestSchema>, 'asset'> & { asset?: string };

/**
 * Checks the shape of a request; checks that need the database live in service/submit-intent.ts.
 */
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

/**
 * Whether a stored intent is this request again. A request that names no wallet leaves the choice
 * to the relayer: any wallet matches it. `request.asset` is as resolved (`native` or the token's
 * address, see store/assets.ts).
 */
export const sameRequest = (intent: Intent, request: NewIntent): boolean =>
  intent.tenantId === request.tenantId &&
  intent.chainId === request.chainId &&
  (request.from === undefined || intent.from === request.from) &&
  intent.to === request.to &&
  intent.asset === (request.asset ?? 'native') &&
  intent.amount === request.amount &&
  (intent.callData ?? undefined) === request.callData &&
  intent.validUntil?.getTime() === request.validUntil?.getTime() &&
  intent.notBefore?.getTime() === request.notBefore?.getTime() &&
  (intent.priority ?? 'normal') === (request.priority ?? 'normal') &&
  (intent.maxFeePerGas ?? undefined) === request.maxFeePerGas &&
  sameCallerReference(
    { reference: intent.reference ?? null, metadata: intent.metadata ?? null },
    request,
  );

import { z } from 'zod';

/** A tenant's payment policy: ceilings per book, who may be paid. */

const chainId = z
  .number({ error: 'chainId must be a number' })
  .int({ error: 'chainId must be an integer' })
  .positive({ error: 'chainId must be positive' });

const bound = (field: string) =>
  z
    .string({ error: `${field} must be a string of base units, or null to remove it` })
    .regex(/^(0|[1-9][0-9]*)$/, { error: `${field} must be a whole number of base units` })
    .transform((value) => BigInt(value))
    .nullable()
    .optional()
    .describe(`base units; null removes the bound, absent leaves it`);

export const policyTenantParamsSchema = z.strictObject({ tenantId: z.string().min(1).max(63) });

const limitsSchema = z.object({
  chainId: z.number().int(),
  asset: z.string().describe('"native", or the alias of a registered token'),
  decimals: z.number().int(),
  maxPerIntent: z.string().nullable().describe('base units; null: no bound'),
  perDay: z.string().nullable().describe('base units over any rolling 24 hours; null: no bound'),
  perWeek: z.string().nullable().describe('base units over any rolling 7 days; null: no bound'),
  approvalThreshold: z
    .string()
    .nullable()
    .describe('an intent of at least this many base units waits for approval; null: none does'),
});

export const policySchema = z
  .object({
    tenantId: z.string(),
    version: z.number().int().describe('0: no policy was ever set'),
    limits: z.array(limitsSchema),
    allowListChains: z
      .array(z.number().int())
      .describe('chains where only allow-listed recipients may be paid'),
  })
  .meta({ id: 'PaymentPolicy' });
export type PolicyView = z.infer<typeof policySchema>;

export const bookLimitsBodySchema = z.strictObject({
  chainId,
  asset: z.string().optional().describe('"native" (the default), or a registered token\'s alias'),
  maxPerIntent: bound('maxPerIntent'),
  perDay: bound('perDay'),
  perWeek: bound('perWeek'),
  approvalThreshold: bound('approvalThreshold'),
});

export const recipientRuleBodySchema = z.strictObject({
  chainId,
  recipients: z
    .enum(['allow_list', 'any'], { error: 'recipients must be "allow_list" or "any"' })
    .describe('allow_list: only allow-listed recipients may be paid; any: anyone not denied'),
});

export const recipientSchema = z
  .object({
    chainId: z.number().int(),
    address: z.string(),
    list: z.enum(['allow', 'deny']),
    label: z.string(),
  })
  .meta({ id: 'PolicyRecipient' });
export type PolicyRecipientView = z.infer<typeof recipientSchema>;

export const recipientsSchema = z
  .object({ recipients: z.array(recipientSchema) })
  .meta({ id: 'PolicyRecipients' });

export const recipientBodySchema = z.strictObject({
  chainId,
  address: z.string({ error: 'address must be a string' }),
  list: z.enum(['allow', 'deny'], { error: 'list must be "allow" or "deny"' }),
  label: z
    .string({ error: 'label must be a string' })
    .min(1, { error: 'label: say who the recipient is' })
    .max(200, { error: 'label: at most 200 characters' }),
});

export const recipientParamsSchema = policyTenantParamsSchema.extend({
  chainId: z.coerce.number().int().positive(),
  address: z.string(),
});

export const chainFilterQuerySchema = z.strictObject({
  chainId: z.coerce.number().int().positive().optional(),
});

export const policyChangesSchema = z
  .object({
    changes: z.array(
      z.object({
        version: z.number().int(),
        changedBy: z.string(),
        change: z.object({ what: z.string(), before: z.unknown(), after: z.unknown() }),
        at: z.string(),
      }),
    ),
  })
  .meta({ id: 'PolicyChanges' });
export type PolicyChangesView = z.infer<typeof policyChangesSchema>;

export const policyChangesQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export const allowedCallSchema = z
  .object({
    chainId: z.number().int(),
    contract: z.string(),
    selector: z.string().describe("the function's 4-byte selector"),
    signature: z.string().nullable().describe('the function as it was named, when by signature'),
    allowNoCode: z
      .boolean()
      .describe('a target without code is not refused (the contract is deployed later)'),
    maxValue: z
      .string()
      .nullable()
      .describe(
        "most wei (the native coin's base units) one call may send; null: what the limits allow",
      ),
    label: z.string(),
  })
  .meta({ id: 'AllowedContractCall' });
export type AllowedCallView = z.infer<typeof allowedCallSchema>;

export const allowedCallsSchema = z
  .object({ calls: z.array(allowedCallSchema) })
  .meta({ id: 'AllowedContractCalls' });

/** A bound above every native coin's supply is a mistake in units, not a bound. */
const maxCallValueWei = 10n ** 30n;

export const allowedCallBodySchema = z.strictObject({
  chainId,
  contract: z.string({ error: 'contract must be an address string' }),
  function: z
    .string({ error: 'function must be a string' })
    .describe('a signature, e.g. "deposit(bytes32)", or a 4-byte selector "0xb214faa5"'),
  maxValue: z
    .string({ error: "maxValue must be a string of wei (the native coin's base units), or null" })
    .regex(/^(0|[1-9][0-9]*)$/, { error: 'maxValue must be a whole number of wei' })
    .transform((value) => BigInt(value))
    .refine((value) => value <= maxCallValueWei, {
      error: `maxValue must be at most ${maxCallValueWei} wei (a trillion coins: more than any chain's native supply)`,
    })
    .nullable()
    .optional()
    .describe(
      "most wei (the native coin's base units) one call may send (0: none); null: no bound but the limits; absent: the bound the call had (none when new)",
    ),
  label: z
    .string({ error: 'label must be a string' })
    .min(1, { error: 'label: say what the call is for' })
    .max(200, { error: 'label: at most 200 characters' }),
  allowNoCode: z
    .boolean({ error: 'allowNoCode must be true or false' })
    .optional()
    .describe(
      'true: calls to the contract are admitted while it has no code (deployed later); absent: as it was (false when new)',
    ),
});

export const allowedCallAnswerSchema = allowedCallSchema
  .extend({
    targetHasCode: z
      .boolean()
      .nullable()
      .describe(
        'whether the contract has code on the chain now (null: the chain is not served here, or did not answer); without, calls are refused unless allowNoCode',
      ),
  })
  .meta({ id: 'AllowedContractCallAnswer' });
export type AllowedCallAnswerView = z.infer<typeof allowedCallAnswerSchema>;

export const allowedCallParamsSchema = policyTenantParamsSchema.extend({
  chainId: z.coerce.number().int().positive(),
  contract: z.string(),
  function: z.string().describe('the selector, or the signature URL-encoded'),
});

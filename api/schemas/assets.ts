import { z } from 'zod';
import { hex } from './common';

/** Tokens an intent may pay in, and a tenant's books per asset. */

export const tokenSchema = z
  .object({
    chainId: z.number().int(),
    address: hex,
    alias: z.string(),
    symbol: z.string(),
    decimals: z.number().int(),
    feeOnTransfer: z.boolean(),
  })
  .meta({ id: 'Token' });

export type TokenView = z.infer<typeof tokenSchema>;

export const tokensSchema = z.object({ tokens: z.array(tokenSchema) }).meta({ id: 'Tokens' });

export const balancesSchema = z
  .object({
    tenantId: z.string(),
    balances: z.array(
      z.object({
        asset: z.string().describe('"native", or the alias of a registered token'),
        chainId: z
          .number()
          .int()
          .describe('the chain the book counts on: what was deposited there pays out only there'),
        decimals: z.number().int().describe('amounts are in base units: 10^-decimals of the asset'),
        available: z.string().describe('base units the tenant can pay out now'),
        held: z.string().describe('base units held for its open intents'),
      }),
    ),
  })
  .meta({ id: 'Balances' });
export type BalancesView = z.infer<typeof balancesSchema>;

export const registeredTokenSchema = tokenSchema
  .extend({
    probe: z
      .enum(['fee_on_transfer', 'delivers_in_full', 'not_probed'])
      .describe('what a transfer simulated from a hot wallet holding the token showed'),
    unregisteredDeposits: z
      .object({ count: z.number().int(), amount: z.string().describe('base units') })
      .describe(
        'transfers of it that reached deposit addresses before it was registered: recorded `unregistered`, not credited',
      ),
  })
  .meta({ id: 'RegisteredToken' });
export type RegisteredTokenView = z.infer<typeof registeredTokenSchema>;

export const registerTokenBodySchema = z.strictObject({
  chainId: z.number().int().positive(),
  address: z.string().describe('the token contract'),
  alias: z.string().optional().describe("unique per chain; defaults to the token's symbol"),
  feeOnTransfer: z
    .boolean()
    .optional()
    .describe('overrides what the probe finds (say so for a token no hot wallet holds yet)'),
});

export const tokensQuerySchema = z.strictObject({ chainId: z.coerce.number().int().optional() });

import { getAddress, isAddress, parseEther, parseGwei, parseUnits } from 'viem';
import { z } from 'zod';
import { feeFamilySchema, presetNames, withPreset } from './chain-presets';
import { decimal, decimalOrZero, finalitySetting, integer, methodWeights, url } from './parsers';

// The chains file's shape: each chain's keys in the units an operator writes, checked all at once.

/** A file value as the environment would spell it: numbers and strings alike. */
const text = <T>(schema: z.ZodType<T, string>) =>
  z.union([z.string(), z.number()]).transform(String).pipe(schema);

const endpointSchema = z.union([
  url,
  z.strictObject({
    url,
    unitsPerSecond: text(integer(1, 10_000_000)).optional(),
    burstUnits: text(integer(1, 10_000_000)).optional(),
    weights: text(methodWeights).optional(),
  }),
]);

const walletSchema = z.string().refine((value) => isAddress(value, { strict: false }), {
  error: 'must be a 0x address',
});

/** An amount of whole tokens: their decimals are the token's, read from it by the sweep. */
const wholeTokens = z
  .string()
  .regex(/^\d+(\.\d+)?$/, { error: 'must be a decimal number of tokens' });
/** Compares amounts of one token whatever its decimals (at most 36). */
const tokenUnits = (amount: string): bigint => parseUnits(amount, 36);

const chainSchema = z.strictObject({
  /** Settings of a chain payouts run on (chain-presets.ts), under the keys written here. */
  preset: z.enum(presetNames, { error: `must be one of ${presetNames.join(', ')}` }).optional(),
  family: feeFamilySchema.optional(),
  minPriorityFeeGwei: text(decimalOrZero(parseGwei, 'gwei')).optional(),
  chainId: text(integer(1)),
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, {
    error: 'must be lower-case letters, digits and "-"',
  }),
  rpc: z.array(endpointSchema).min(1, { error: 'must list at least one endpoint' }),
  blockTimeMs: text(integer(0, 600_000)).optional(),
  confirmations: text(integer(1, 1000)).optional(),
  gasPricing: z.enum(['eip1559', 'legacy'], { error: 'must be eip1559 or legacy' }).optional(),
  maxFeePerGasGwei: text(decimal(parseGwei, 'gwei')).optional(),
  maxPriorityFeeGwei: text(decimal(parseGwei, 'gwei')).optional(),
  maxFeePerTransferEth: text(decimal(parseEther, 'ether')).optional(),
  baseFeeFloorGwei: text(decimalOrZero(parseGwei, 'gwei')).optional(),
  wallets: z.array(walletSchema).min(1, { error: 'must list at least one wallet' }).optional(),
  lowBalanceEth: text(decimal(parseEther, 'ether')).optional(),
  finality: text(finalitySetting).optional(),
  treasury: walletSchema.optional(),
  depositFactory: walletSchema.optional(),
  treasuryLowBalanceEth: text(decimal(parseEther, 'ether')).optional(),
  topUpTargetEth: text(decimal(parseEther, 'ether')).optional(),
  tokenTopUps: z
    .array(
      z
        .strictObject({
          token: walletSchema,
          lowBalance: text(wholeTokens),
          topUpTarget: text(wholeTokens),
        })
        .refine((marks) => tokenUnits(marks.topUpTarget) > tokenUnits(marks.lowBalance), {
          error: 'topUpTarget must be above lowBalance',
          path: ['topUpTarget'],
        }),
    )
    .optional(),
});

export const fileSchema = z.strictObject({
  chains: z
    .array(z.preprocess(withPreset, chainSchema))
    .min(1, { error: 'must list at least one chain' })
    .superRefine((chains, context) => {
      const seen = new Map<number, number>();
      chains.forEach((chain, i) => {
        const treasury = chain.treasury && getAddress(chain.treasury);

        if (treasury && chain.wallets?.some((wallet) => getAddress(wallet) === treasury)) {
          context.addIssue({
            code: 'custom',
            path: [i, 'treasury'],
            message: `${treasury} is one of the chain's hot wallets: a treasury only tops them up`,
          });
        }
        const first = seen.get(chain.chainId);
        if (first !== undefined) {
          context.addIssue({
            code: 'custom',
            path: [i, 'chainId'],
            message: `chain ${chain.chainId} is already chains[${first}]`,
          });
        } else seen.set(chain.chainId, i);
      });
    }),
});

export type FileChain = z.infer<typeof chainSchema>;

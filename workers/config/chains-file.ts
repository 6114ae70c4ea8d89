import { readFileSync } from 'node:fs';
import { getAddress, isAddress, parseEther, parseGwei, parseUnits, type Hex } from 'viem';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { TokenTopUp } from '../../chain/chain';
import type { Finality, GasPricing } from '../../chain/chain-traits';
import type { MethodWeights } from '../../throttle/rpc-weights';
import { decimal, decimalOrZero, finalitySetting, integer, methodWeights, url } from './parsers';

/** One RPC endpoint of a chain and the provider's quota on it. */
export interface ChainEndpoint {
  url: string;
  unitsPerSecond: number;
  burstUnits: number;
  weights: MethodWeights;
}

/** One chain the relayer serves, every setting resolved (the file's, else the environment's). */
export interface ChainConfig {
  chainId: number;
  name: string;
  /** In failover order. */
  endpoints: ChainEndpoint[];
  blockTimeMs: number;
  confirmations: number;
  gasPricing: GasPricing;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  maxFeePerTransfer: bigint;
  /** The least base fee the chain charges (wei): a payment's own ceiling below it is refused. */
  baseFeeFloorPerGas: bigint;
  /** The hot wallets allowed to send on it; undefined: every wallet of the process. */
  wallets?: Hex[];
  /** A hot wallet below this (wei) is low: a warning, a gauge, /readyz, a top-up. */
  lowBalanceWei: bigint;
  /** What a top-up brings a low hot wallet back up to (wei). */
  topUpTargetWei: bigint;
  /**
   * The wallet that tops the hot wallets up, its own low mark, and the tokens it tops them up
   * in besides the native coin; undefined: no top-ups.
   */
  treasury?: { address: Hex; lowBalanceWei: bigint; tokens: TokenTopUp[] };
  /** When a confirmed intent's block is final (`finalizedAt`). */
  finality: Finality;
  /** The deposit factory its tenants' deposit addresses follow from; undefined: no deposits. */
  depositFactory?: Hex;
}

/** What a chain gets where the file says nothing: the environment's single-chain settings. */
export type ChainDefaults = Omit<
  ChainConfig,
  'chainId' | 'name' | 'endpoints' | 'wallets' | 'treasury' | 'depositFactory'
> &
  Omit<ChainEndpoint, 'url'> & {
    treasury?: Hex;
    treasuryLowBalanceWei: bigint;
    depositFactory?: Hex;
  };

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

const fileSchema = z.strictObject({
  chains: z
    .array(chainSchema)
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

type FileChain = z.infer<typeof chainSchema>;

/**
 * The chains of CHAINS_FILE (YAML or JSON), each setting it leaves out taken from `defaults`.
 * Every problem is returned at once, each naming the file, the chain and the key.
 */
export function readChainsFile(
  path: string,
  defaults: ChainDefaults,
): { chains: ChainConfig[] } | { problems: string[] } {
  let content: unknown;
  try {
    content = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    return { problems: [`CHAINS_FILE: cannot read ${path}: ${(error as Error).message}`] };
  }
  const parsed = fileSchema.safeParse(content);
  if (!parsed.success) {
    const raw = (content ?? {}) as { chains?: { name?: unknown }[] };
    return {
      problems: parsed.error.issues.map((issue) => {
        const [top, index, ...rest] = issue.path;
        const chainName =
          top === 'chains' && typeof index === 'number' ? raw.chains?.[index]?.name : undefined;
        const where =
          top === 'chains' && typeof index === 'number'
            ? `chains[${index}]${typeof chainName === 'string' ? ` (${chainName})` : ''}${rest.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('')}`
            : issue.path.map(String).join('.') || 'the file';
        return `CHAINS_FILE ${path}: ${where}: ${issue.message}`;
      }),
    };
  }
  const untreasured = parsed.data.chains.filter(
    (chain) => chain.tokenTopUps && !chain.treasury && !defaults.treasury,
  );
  if (untreasured.length > 0) {
    return {
      problems: untreasured.map(
        (chain) =>
          `CHAINS_FILE ${path}: chains (${chain.name}).tokenTopUps: tops up from a treasury: name one (treasury, or TREASURY_WALLET)`,
      ),
    };
  }
  return { chains: parsed.data.chains.map((chain) => resolveChain(chain, defaults)) };
}

function resolveChain(chain: FileChain, defaults: ChainDefaults): ChainConfig {
  const treasury = chain.treasury ? getAddress(chain.treasury) : defaults.treasury;
  const depositFactory = chain.depositFactory
    ? getAddress(chain.depositFactory)
    : defaults.depositFactory;
  return {
    chainId: chain.chainId,
    name: chain.name,
    endpoints: chain.rpc.map((endpoint) =>
      typeof endpoint === 'string'
        ? { url: endpoint, ...quotaOf(defaults) }
        : {
            url: endpoint.url,
            unitsPerSecond: endpoint.unitsPerSecond ?? defaults.unitsPerSecond,
            burstUnits: endpoint.burstUnits ?? defaults.burstUnits,
            weights: endpoint.weights ?? defaults.weights,
          },
    ),
    blockTimeMs: chain.blockTimeMs ?? defaults.blockTimeMs,
    confirmations: chain.confirmations ?? defaults.confirmations,
    gasPricing: chain.gasPricing ?? defaults.gasPricing,
    maxFeePerGas: chain.maxFeePerGasGwei ?? defaults.maxFeePerGas,
    maxPriorityFeePerGas: chain.maxPriorityFeeGwei ?? defaults.maxPriorityFeePerGas,
    maxFeePerTransfer: chain.maxFeePerTransferEth ?? defaults.maxFeePerTransfer,
    baseFeeFloorPerGas: chain.baseFeeFloorGwei ?? defaults.baseFeeFloorPerGas,
    ...(chain.wallets && { wallets: chain.wallets.map((wallet) => getAddress(wallet)) }),
    lowBalanceWei: chain.lowBalanceEth ?? defaults.lowBalanceWei,
    topUpTargetWei: chain.topUpTargetEth ?? defaults.topUpTargetWei,
    finality: chain.finality ?? defaults.finality,
    ...(depositFactory && { depositFactory }),
    ...(treasury && {
      treasury: {
        address: treasury,
        lowBalanceWei: chain.treasuryLowBalanceEth ?? defaults.treasuryLowBalanceWei,
        tokens: (chain.tokenTopUps ?? []).map((marks) => ({
          ...marks,
          token: getAddress(marks.token),
        })),
      },
    }),
  };
}

const quotaOf = (defaults: ChainDefaults): Omit<ChainEndpoint, 'url'> => ({
  unitsPerSecond: defaults.unitsPerSecond,
  burstUnits: defaults.burstUnits,
  weights: defaults.weights,
});

/** The chains the environment's shorthand describes: CHAIN_ID and RPC_URLS, then EXTRA_CHAINS. */
export function chainsOfEnvironment(
  home: { chainId: number; rpcUrls: string[] },
  extra: readonly { chainId: number; rpcUrls: string[] }[],
  defaults: ChainDefaults,
): ChainConfig[] {
  return [home, ...extra].map((chain) =>
    resolveChain(
      { chainId: chain.chainId, name: `chain-${chain.chainId}`, rpc: chain.rpcUrls },
      defaults,
    ),
  );
}

import type { FeeFamily } from '../../chain/fee-policy';
import { fileSchema, type FileChain } from './chains-file-schema';
import { readFileSync } from 'node:fs';
import { formatGwei, getAddress, type Hex } from 'viem';
import { parse as parseYaml } from 'yaml';
import type { TokenTopUp } from '../../chain/chain';
import type { Finality, GasPricing } from '../../chain/chain-traits';
import type { MethodWeights } from '../../throttle/rpc-weights';

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
  /** How it charges for gas (chain-presets.ts); ethereum unless named. */
  family: FeeFamily;
  /** The least tip its nodes take (wei): bids meet it whatever the node suggests. */
  minPriorityFeePerGas: bigint;
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
  | 'chainId'
  | 'name'
  | 'endpoints'
  | 'wallets'
  | 'treasury'
  | 'depositFactory'
  | 'family'
  | 'minPriorityFeePerGas'
> &
  Omit<ChainEndpoint, 'url'> & {
    treasury?: Hex;
    treasuryLowBalanceWei: bigint;
    depositFactory?: Hex;
  };

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
  const chains = parsed.data.chains.map((chain) => resolveChain(chain, defaults));
  // A tip floor above the tip cap: no bid could meet both, so nothing would ever be sent.
  const unpayable = chains.filter(
    (chain) => chain.minPriorityFeePerGas > chain.maxPriorityFeePerGas,
  );
  if (unpayable.length > 0) {
    return {
      problems: unpayable.map(
        (chain) =>
          `CHAINS_FILE ${path}: chains (${chain.name}).minPriorityFeeGwei: ${formatGwei(chain.minPriorityFeePerGas)} is above the tip cap of ${formatGwei(chain.maxPriorityFeePerGas)} gwei (maxPriorityFeeGwei, or MAX_PRIORITY_FEE_GWEI): no bid could meet both`,
      ),
    };
  }
  return { chains };
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
    family: chain.family ?? 'ethereum',
    minPriorityFeePerGas: chain.minPriorityFeeGwei ?? 0n,
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

import { formatEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ErrorName } from '../../domain/error-catalogue';
import { RelayerError } from '../../domain/errors';
import { essentialMethods, weightOf } from '../../throttle/rpc-weights';
import {
  chainsOfEnvironment,
  readChainsFile,
  type ChainConfig,
  type ChainDefaults,
  type ChainEndpoint,
} from './chains-file';
import type { Setting } from './parsers';
import { resolveTemporal, type TemporalConnectConfig } from './temporal-profile';
import { withSecretFiles } from './secret-files';
import type { Role } from './role';
import { settings } from './settings';

type Settings = typeof settings;
export type RelayerConfig = {
  [K in keyof Settings]: Settings[K] extends Setting<infer T> ? T : never;
} & {
  /**
   * Every chain served, CHAIN_ID's (or the chains file's first) first, each setting resolved.
   * With CHAINS_FILE, chainId and rpcUrls are its first chain's.
   */
  chains: ChainConfig[];
  /** How to reach Temporal: the profile and TEMPORAL_* variables resolved (temporal-profile.ts). */
  temporal: TemporalConnectConfig;
};

export class ConfigError extends RelayerError<{ problems: string[] }> {
  constructor({
    problems,
    heading = 'invalid configuration',
  }: {
    problems: string[];
    heading?: string;
  }) {
    super(ErrorName.invalidConfig, `${heading}:\n  ${problems.join('\n  ')}`, { problems });
  }

  /** Each thing wrong, by the variable or flag it is about. */
  get problems(): string[] {
    return this.details.problems;
  }
}

/**
 * Reads every setting for a process running `roles`; reports all bad variables at once, each by
 * name.
 */
export function loadConfig(
  environment: Record<string, string | undefined> = process.env,
  roles: readonly Role[] = ['worker'],
): RelayerConfig {
  const { env, problems } = withSecretFiles(environment, Object.values(settings));
  const config: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(settings) as [string, Setting<unknown>][]) {
    const given = env[s.env]?.trim();
    const raw = given || s.fallback;
    if (raw === undefined || (!given && s.requiredBy && roles.includes(s.requiredBy))) {
      problems.push(
        `${s.env}: required${s.requiredBy ? ` by the ${s.requiredBy} process` : ''} (${s.doc})`,
      );
      continue;
    }
    const parsed = s.parse.safeParse(raw);
    if (parsed.success) config[key] = parsed.data;
    else {
      const shown = s.secret ? '' : ` (got "${raw}")`;
      problems.push(`${s.env}: ${parsed.error.issues.map((i) => i.message).join(', ')}${shown}`);
    }
  }
  const extraChains = (config.extraChains ?? []) as { chainId: number }[];
  if (extraChains.some((chain) => chain.chainId === config.chainId)) {
    problems.push(`EXTRA_CHAINS: chain ${String(config.chainId)} is already CHAIN_ID`);
  }
  problems.push(...resolveChains(config, env));
  const { temporal, problems: temporalProblems } = resolveTemporal(env);
  config.temporal = temporal;
  problems.push(...temporalProblems);
  problems.push(...walletProblems(config as Partial<RelayerConfig>, roles));
  if (config.rpcWeights && config.rpcBurstUnits && config.rpcUnitsPerSecond) {
    const c = config as RelayerConfig;
    problems.push(
      ...budgetProblems({
        weights: c.rpcWeights,
        burstUnits: c.rpcBurstUnits,
        unitsPerSecond: c.rpcUnitsPerSecond,
      }),
    );
  }
  if (problems.length > 0) throw new ConfigError({ problems: problems });
  return config as RelayerConfig;
}

/**
 * `config.chains`: the chains file's, or the environment's shorthand; the other single-chain
 * settings are the defaults of both. Problems are returned, the config completed in place.
 */
function resolveChains(
  config: Record<string, unknown>,
  env: Record<string, string | undefined>,
): string[] {
  const c = config as Partial<RelayerConfig>;
  const defaults = {
    blockTimeMs: c.blockTimeMs,
    confirmations: c.confirmations,
    gasPricing: c.gasPricing,
    maxFeePerGas: c.maxFeePerGas,
    maxPriorityFeePerGas: c.maxPriorityFeePerGas,
    maxFeePerTransfer: c.maxFeePerTransfer,
    baseFeeFloorPerGas: c.baseFeeFloor,
    lowBalanceWei: c.lowBalance,
    topUpTargetWei: c.topUpTarget,
    treasuryLowBalanceWei: c.treasuryLowBalance,
    finality: c.finality,
    unitsPerSecond: c.rpcUnitsPerSecond,
    burstUnits: c.rpcBurstUnits,
    weights: c.rpcWeights,
  };
  // A bad setting is reported as such already: no chain is built on it.
  const unread = Object.values(defaults).some((value) => value === undefined);
  const treasury = c.treasuryWallet;
  const depositFactory = c.depositFactory;
  if (unread || c.chainId === undefined || !c.rpcUrls || !('chainsFile' in config)) return [];
  if (c.chainsFile === undefined) {
    config.chains = chainsOfEnvironment(
      { chainId: c.chainId, rpcUrls: c.rpcUrls },
      c.extraChains ?? [],
      {
        ...(defaults as ChainDefaults),
        ...(treasury && { treasury }),
        ...(depositFactory && { depositFactory }),
      },
    );
    return treasuryProblems(config.chains as ChainConfig[]);
  }
  const shorthand = ['CHAIN_ID', 'RPC_URLS', 'EXTRA_CHAINS'].filter((name) => env[name]?.trim());
  if (shorthand.length > 0) {
    return [`CHAINS_FILE: names the chains; unset ${shorthand.join(', ')} (given too)`];
  }
  const fromFile = readChainsFile(c.chainsFile, {
    ...(defaults as ChainDefaults),
    ...(treasury && { treasury }),
    ...(depositFactory && { depositFactory }),
  });
  if ('problems' in fromFile) return fromFile.problems;
  const endpointProblems = fromFile.chains.flatMap((chain) =>
    chain.endpoints.flatMap((endpoint, i) => {
      const at = `CHAINS_FILE ${c.chainsFile}: chains (${chain.name}).rpc[${i}]`;
      return budgetProblems(endpoint, {
        burst: `${at}.burstUnits`,
        units: `${at}.unitsPerSecond`,
        weights: 'its weights',
      });
    }),
  );
  if (endpointProblems.length > 0) return endpointProblems;
  const problems = treasuryProblems(fromFile.chains, c.chainsFile);
  if (problems.length > 0) return problems;
  config.chains = fromFile.chains;
  config.chainId = fromFile.chains[0]!.chainId;
  config.rpcUrls = fromFile.chains[0]!.endpoints.map((endpoint) => endpoint.url);
  config.extraChains = [];
  return [];
}

/** A top-up must leave a wallet above its low mark, or the next sweep would top it up again. */
function treasuryProblems(chains: readonly ChainConfig[], file?: string): string[] {
  return chains
    .filter((chain) => chain.treasury && chain.topUpTargetWei <= chain.lowBalanceWei)
    .map((chain) =>
      file
        ? `CHAINS_FILE ${file}: chains (${chain.name}).topUpTargetEth: must be above the chain's low mark (${formatEther(chain.lowBalanceWei)} ETH)`
        : `TOP_UP_TARGET_ETH: must be above LOW_BALANCE_ETH (${formatEther(chain.lowBalanceWei)}) when TREASURY_WALLET is set`,
    );
}

/** A worker needs a wallet; a wallet is held by one key; a KMS key needs its region. */
function walletProblems(config: Partial<RelayerConfig>, roles: readonly Role[]): string[] {
  const problems: string[] = [];
  const given: { variable: string; address: string }[] = [
    ...(config.hotWalletKeys ?? []).map((key) => ['HOT_WALLET_KEYS', key] as const),
    ...(config.hotWalletKeysFile ?? []).map((key) => ['HOT_WALLET_KEYS_FILE', key] as const),
  ].map(([variable, key]) => ({ variable, address: privateKeyToAccount(key).address }));
  for (const signer of config.walletSigners ?? []) {
    given.push({ variable: 'WALLET_SIGNERS', address: signer.address });
  }
  const seen = new Map<string, string>();
  for (const { variable, address } of given) {
    const first = seen.get(address);
    if (first) problems.push(`${variable}: wallet ${address} is already given in ${first}`);
    else seen.set(address, variable);
  }
  // Only when all three were read: a bad one is reported as such, not as a missing wallet.
  if (
    roles.includes('worker') &&
    seen.size === 0 &&
    config.hotWalletKeys &&
    config.hotWalletKeysFile &&
    config.walletSigners
  ) {
    problems.push(
      'HOT_WALLET_KEYS: required by the worker process, unless HOT_WALLET_KEYS_FILE or WALLET_SIGNERS names its wallets',
    );
  }
  // The treasury signs its top-ups in the workers: one of their wallets.
  if (roles.includes('worker') && seen.size > 0) {
    for (const chain of config.chains ?? []) {
      if (chain.treasury && !seen.has(chain.treasury.address)) {
        problems.push(
          `${config.chainsFile ? `CHAINS_FILE ${config.chainsFile}: chains (${chain.name}).treasury` : 'TREASURY_WALLET'}: ${chain.treasury.address} is none of this process's wallets (HOT_WALLET_KEYS, HOT_WALLET_KEYS_FILE, WALLET_SIGNERS)`,
        );
      }
    }
  }
  if (
    config.walletSigners?.some((signer) => signer.kind === 'kms') &&
    // A region that is there but bad is reported as bad, not as missing.
    'awsRegion' in config &&
    config.awsRegion === undefined
  ) {
    problems.push('AWS_REGION: required when WALLET_SIGNERS names a KMS key');
  }
  return problems;
}

/**
 * A budget that cannot pay for one call the relayer needs would stall it: refused at start.
 * `where` names the settings: the environment's, or an endpoint of the chains file.
 */
function budgetProblems(
  { weights, burstUnits, unitsPerSecond }: Omit<ChainEndpoint, 'url'>,
  where = { burst: 'RPC_BURST_UNITS', units: 'RPC_UNITS_PER_SECOND', weights: 'RPC_WEIGHTS' },
): string[] {
  const heaviest = Math.max(...essentialMethods.map((method) => weightOf(weights, method)));
  const send = weightOf(weights, 'eth_sendRawTransaction');
  return [
    ...(burstUnits < heaviest
      ? [
          `${where.burst}: must be at least ${heaviest}, the heaviest call the relayer needs under ${where.weights} (got "${burstUnits}")`,
        ]
      : []),
    ...(unitsPerSecond < send
      ? [
          `${where.units}: must be at least ${send}, one send under ${where.weights} (got "${unitsPerSecond}")`,
        ]
      : []),
  ];
}

import { privateKeyToAccount } from 'viem/accounts';
import { ErrorType } from '../../domain/errors';
import { essentialMethods, weightOf } from '../../throttle/rpc-weights';
import type { Setting } from './parsers';
import type { Role } from './role';
import { settings } from './settings';

type Settings = typeof settings;
export type RelayerConfig = {
  [K in keyof Settings]: Settings[K] extends Setting<infer T> ? T : never;
};

export class ConfigError extends Error {
  override readonly name = ErrorType.invalidConfig;
  constructor(
    readonly problems: string[],
    heading = 'invalid configuration',
  ) {
    super(`${heading}:\n  ${problems.join('\n  ')}`);
  }
}

/**
 * Reads every setting for a process running `roles`; reports all bad variables at once, each by
 * name.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  roles: readonly Role[] = ['worker'],
): RelayerConfig {
  const problems: string[] = [];
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
  problems.push(...walletProblems(config as Partial<RelayerConfig>, roles));
  if (config.rpcWeights && config.rpcBurstUnits && config.rpcUnitsPerSecond) {
    problems.push(...budgetProblems(config as Pick<RelayerConfig, BudgetKeys>));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config as RelayerConfig;
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

type BudgetKeys = 'rpcWeights' | 'rpcBurstUnits' | 'rpcUnitsPerSecond';

/** A budget that cannot pay for one call the relayer needs would stall it: refused at start. */
function budgetProblems({
  rpcWeights,
  rpcBurstUnits,
  rpcUnitsPerSecond,
}: Pick<RelayerConfig, BudgetKeys>) {
  const heaviest = Math.max(...essentialMethods.map((method) => weightOf(rpcWeights, method)));
  const send = weightOf(rpcWeights, 'eth_sendRawTransaction');
  return [
    ...(rpcBurstUnits < heaviest
      ? [
          `RPC_BURST_UNITS: must be at least ${heaviest}, the heaviest call the relayer needs under RPC_WEIGHTS (got "${rpcBurstUnits}")`,
        ]
      : []),
    ...(rpcUnitsPerSecond < send
      ? [
          `RPC_UNITS_PER_SECOND: must be at least ${send}, one send under RPC_WEIGHTS (got "${rpcUnitsPerSecond}")`,
        ]
      : []),
  ];
}

import { isHex, parseEther, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { z } from 'zod';
import { crashPoints, type CrashPoint } from '../activities/failpoints';
import { ErrorType } from '../domain/errors';
import { defaultConfirmTimeoutMs, defaultSendWindowMs } from '../domain/intent-timings';
import { keysFileSetting, walletSignersSetting } from './signer-settings';
import {
  essentialMethods,
  knownRpcMethods,
  presetWeights,
  weightOf,
  weightPresets,
  type MethodWeights,
  type WeightPreset,
} from '../throttle/rpc-weights';

/**
 * Every setting of a worker process: its environment variable, its default and what it means.
 * Parsed once at start; a bad value stops the process with the variable's name. The README's
 * configuration table is generated from this list (`npm run docs:config`) and checked by a test.
 */
/** What a process runs: the Temporal workers, the HTTP API, or both (`npm start`). */
export type Role = 'worker' | 'api';

interface Setting<T> {
  env: string;
  doc: string;
  /** The default as it would be written in the environment; undefined = required. */
  fallback?: string;
  /** Unset is fine unless the process runs this role (its fallback is then ''). */
  requiredBy?: Role;
  /** Never echoed back in an error message. */
  secret?: boolean;
  parse: z.ZodType<T, string>;
}

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d+$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    );

const yes = ['true', '1', 'yes', 'on'];
const no = ['false', '0', 'no', 'off'];
/** A switch as people type one: true/false, 1/0, yes/no, on/off, in any case. */
const onOff = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .refine((value) => yes.includes(value) || no.includes(value), {
    error: `must be one of ${[...yes, ...no].join(', ')}`,
  })
  .transform((value) => yes.includes(value));

const list = <T>(item: z.ZodType<T, string>) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).min(1, { error: 'must list at least one value' }));

const url = z.url({ error: 'must be a URL' });

/** Unset (empty) means off. */
const optional = <T>(schema: z.ZodType<T, string>) =>
  z
    .string()
    .transform((value) => (value === '' ? undefined : value))
    .pipe(schema.optional());
const privateKey = z
  .string()
  .refine((value) => isHex(value) && value.length === 66, {
    error: 'must be 0x followed by 64 hex digits (a private key)',
  })
  .transform((value) => value as `0x${string}`);

/** A decimal amount in `unit` (gwei, ether), read exactly into wei. */
const decimal = (parse: (value: string) => bigint, unit: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, { error: `must be a decimal number of ${unit}` })
    .transform((value) => parse(value))
    .pipe(z.bigint().positive({ error: `must be more than 0 ${unit}` }));

/** `<chainId>=<url>[,<url>…]`: one more chain and its endpoints, in failover order. */
const extraChain = z
  .string()
  .regex(/^\d+=\S+$/, { error: 'each chain must be written <chainId>=<url>[,<url>…]' })
  .transform((value) => {
    const [id, urls] = value.split('=', 2) as [string, string];
    return { chainId: id, rpcUrls: urls };
  })
  .pipe(z.object({ chainId: integer(1), rpcUrls: list(url) }));

/** `<crash point>[@<n>]`, n-th time reached (default the first). */
const crashAt = z.string().transform((value, context) => {
  const [point, times = '1'] = value.split('@', 2) as [string, string?];
  if (!(crashPoints as readonly string[]).includes(point)) {
    context.addIssue({
      code: 'custom',
      message: `${point} is not one of ${crashPoints.join(', ')}`,
    });
    return z.NEVER;
  }
  if (!/^[1-9]\d*$/.test(times)) {
    context.addIssue({ code: 'custom', message: `${value}: @ must be followed by a count from 1` });
    return z.NEVER;
  }
  return [point as CrashPoint, Number(times)] as const;
});

/** Crash points with the time each is reached at, e.g. `after-sign@3, after-hold` (unset: none). */
const crashPlan = optional(list(crashAt).transform((entries) => new Map(entries)));

/** `[<preset>,]<method>=<units>,…`: a preset's table with some methods weighed otherwise. */
const methodWeights = z.string().transform((value, context): MethodWeights => {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const first = parts[0] ?? 'per-call';
  const preset = (weightPresets as readonly string[]).includes(first)
    ? (first as WeightPreset)
    : undefined;
  const base = presetWeights(preset ?? 'per-call');
  const byMethod: Record<string, number> = { ...base.byMethod };
  for (const part of preset ? parts.slice(1) : parts) {
    const match = /^([A-Za-z0-9_]+)=(\S+)$/.exec(part);
    if (!match) {
      context.addIssue({
        code: 'custom',
        message: `"${part}" is neither a preset (${weightPresets.join(', ')}) nor <method>=<units>`,
      });
      continue;
    }
    const [, method, units] = match as unknown as [string, string, string];
    if (!(knownRpcMethods as readonly string[]).includes(method)) {
      context.addIssue({ code: 'custom', message: `${method} is not a JSON-RPC method we know` });
    } else if (!/^\d+$/.test(units) || Number(units) < 1) {
      context.addIssue({
        code: 'custom',
        message: `${method}'s weight must be a whole number of units from 1 (got ${units})`,
      });
    } else byMethod[method] = Number(units);
  }
  return { ...base, byMethod };
});

const setting = <T>(s: Setting<T>): Setting<T> => s;

export const settings = {
  temporalAddress: setting({
    env: 'TEMPORAL_ADDRESS',
    fallback: 'localhost:7233',
    doc: 'Temporal frontend, host:port',
    parse: z.string().regex(/^[^:\s]+:\d+$/, { error: 'must be host:port' }),
  }),
  temporalNamespace: setting({
    env: 'TEMPORAL_NAMESPACE',
    fallback: 'default',
    doc: 'Temporal namespace',
    parse: z.string().min(1),
  }),
  taskQueue: setting({
    env: 'TASK_QUEUE',
    fallback: 'payment-relayer',
    doc: 'Main task queue; the throttle and permit queues are named after it',
    parse: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, { error: 'must be letters, digits, ".", "_" or "-"' }),
  }),
  databaseUrl: setting({
    env: 'DATABASE_URL',
    fallback: 'sqlite:.relayer/relayer.sqlite',
    doc: 'postgres://… for PostgreSQL, sqlite:<file> for an SQLite file',
    parse: z.string().regex(/^(postgres(ql)?:\/\/.+|sqlite:.+)$/, {
      error: 'must start with postgres://, postgresql:// or sqlite:',
    }),
  }),
  chainId: setting({
    env: 'CHAIN_ID',
    fallback: '31337',
    doc: 'EVM chain id the RPC endpoints serve',
    parse: integer(1),
  }),
  rpcUrls: setting({
    env: 'RPC_URLS',
    fallback: 'http://127.0.0.1:8545',
    doc: 'Comma-separated JSON-RPC endpoints, tried in order (failover)',
    // Provider URLs often carry an API key: never echoed.
    secret: true,
    parse: list(url),
  }),
  extraChains: setting({
    env: 'EXTRA_CHAINS',
    fallback: '',
    doc: 'More EVM chains served at once: `<chainId>=<url>[,<url>…]`, `;` between chains (same wallets, confirmations, caps and quota)',
    secret: true,
    parse: z
      .string()
      .transform((value) =>
        value
          .split(';')
          .map((part) => part.trim())
          .filter(Boolean),
      )
      .pipe(z.array(extraChain))
      .refine((chains) => new Set(chains.map((c) => c.chainId)).size === chains.length, {
        error: 'names a chain id twice',
      }),
  }),
  hotWalletKeys: setting({
    env: 'HOT_WALLET_KEYS',
    fallback: '',
    doc: 'Comma-separated private keys of wallets signed for in this process (workers sign; the API process needs none). A worker needs at least one wallet: here, in HOT_WALLET_KEYS_FILE or in WALLET_SIGNERS',
    secret: true,
    parse: optional(list(privateKey)).transform((keys) => keys ?? []),
  }),
  hotWalletKeysFile: setting({
    env: 'HOT_WALLET_KEYS_FILE',
    fallback: '',
    doc: 'A file of private keys, one per line (a mounted secret), beside or instead of HOT_WALLET_KEYS',
    parse: optional(keysFileSetting).transform((keys) => keys ?? []),
  }),
  walletSigners: setting({
    env: 'WALLET_SIGNERS',
    fallback: '',
    doc: 'Wallets whose keys live outside the process, comma-separated: `<address>=kms:<key id, ARN or alias>` (AWS KMS, an ECC_SECG_P256K1 key) or `<address>=remote:<http(s) URL>` (a JSON-RPC signer answering `eth_signTransaction`, such as Web3Signer)',
    // A signer URL may carry credentials: never echoed.
    secret: true,
    parse: optional(walletSignersSetting).transform((signers) => signers ?? []),
  }),
  awsRegion: setting({
    env: 'AWS_REGION',
    fallback: '',
    doc: "AWS KMS's region, required when WALLET_SIGNERS names a KMS key; credentials come from the AWS SDK's default chain (environment, profile, task or instance role), never from this table",
    parse: optional(
      z
        .string()
        .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, { error: 'must be an AWS region such as eu-west-2' }),
    ),
  }),
  kmsEndpoint: setting({
    env: 'KMS_ENDPOINT',
    fallback: '',
    doc: "Another KMS endpoint (a VPC endpoint; local-kms in tests); unset: the region's own",
    parse: optional(url),
  }),
  signerConcurrency: setting({
    env: 'SIGNER_CONCURRENCY',
    fallback: '8',
    doc: "Signing requests in flight per signer and process (one for KMS's account and region, one per remote signer URL): KMS has request quotas",
    parse: integer(1, 1000),
  }),
  signerTimeoutMs: setting({
    env: 'SIGNER_TIMEOUT_MS',
    fallback: '5000',
    doc: "Timeout of one request to KMS or a remote signer (a signing holds its wallet's nonce until it ends)",
    parse: integer(100, 25_000),
  }),
  confirmations: setting({
    env: 'CONFIRMATIONS',
    fallback: '1',
    doc: "Blocks (counting the receipt's) before an intent is confirmed",
    parse: integer(1, 1000),
  }),
  blockTimeMs: setting({
    env: 'BLOCK_TIME_MS',
    fallback: '0',
    doc: "The chains' block time: the first look at a sent transaction waits this × CONFIRMATIONS (0 looks at once, as on a chain that mines on arrival like anvil's automine)",
    parse: integer(0, 600_000),
  }),
  pollIntervalMs: setting({
    env: 'CONFIRM_POLL_INTERVAL_MS',
    fallback: '1000',
    doc: 'Wait between two looks at a pending transaction',
    parse: integer(50, 600_000),
  }),
  rpcTimeoutMs: setting({
    env: 'RPC_TIMEOUT_MS',
    fallback: '10000',
    doc: 'Timeout of one JSON-RPC request',
    parse: integer(100, 25_000),
  }),
  stuckAfterMs: setting({
    env: 'STUCK_AFTER_MS',
    fallback: '60000',
    doc: 'A sent transaction not mined this long is replaced with a higher fee bid (same nonce), or the nonce gap before it filled',
    parse: integer(100, 86_400_000),
  }),
  sendWindowMs: setting({
    env: 'SEND_WINDOW_MS',
    fallback: String(defaultSendWindowMs),
    doc: 'How long a send is retried with the same signed bytes before the intent waits in needs_review for a person (the review rule); recorded in each intent as it starts',
    parse: integer(1000, 86_400_000),
  }),
  confirmTimeoutMs: setting({
    env: 'CONFIRM_TIMEOUT_MS',
    fallback: String(defaultConfirmTimeoutMs),
    doc: 'How long a sent transaction may stay unconfirmed before the intent waits in needs_review (the lane rule runs from then on); recorded in each intent as it starts',
    parse: integer(1000, 7 * 86_400_000),
  }),
  maxFeePerGas: setting({
    env: 'MAX_FEE_PER_GAS_GWEI',
    fallback: '500',
    doc: 'Cap on the max fee per gas of any attempt, in gwei: above it sends wait',
    parse: decimal(parseGwei, 'gwei'),
  }),
  maxPriorityFeePerGas: setting({
    env: 'MAX_PRIORITY_FEE_GWEI',
    fallback: '20',
    doc: 'Cap on the priority fee (tip) per gas of any attempt, in gwei',
    parse: decimal(parseGwei, 'gwei'),
  }),
  maxFeePerTransfer: setting({
    env: 'MAX_FEE_PER_TRANSFER_ETH',
    fallback: '0.05',
    doc: 'Cap on what one transfer may spend on gas (gas limit × max fee per gas), in ether',
    parse: decimal(parseEther, 'ether'),
  }),
  gasPaidBy: setting({
    env: 'GAS_PAID_BY',
    fallback: 'house',
    doc: "Who the books charge the gas of each mined transaction to, in the native coin: `house` (the relayer's own account, `@system/house`), or `tenant` (its native account: up to MAX_FEE_PER_TRANSFER_ETH is held with every intent, native or token, the gas captured and the rest released; the house pays what the cap does not cover, such as an L1 data fee)",
    parse: z.enum(['house', 'tenant'], { error: 'must be house or tenant' }),
  }),
  lowBalance: setting({
    env: 'LOW_BALANCE_ETH',
    fallback: '0.1',
    doc: 'A hot wallet below this balance, in ether, is logged by the workers and listed in /readyz (`warnings`) and `wallets list`',
    parse: decimal(parseEther, 'ether'),
  }),
  walletWatchMs: setting({
    env: 'WALLET_WATCH_MS',
    fallback: '30000',
    doc: "How often a worker reads its hot wallets' balances for the metric and the low-balance log, and takes on wallets added at run time (`wallets add`); 0: never (added wallets are then taken on when a worker starts)",
    parse: integer(0, 86_400_000),
  }),
  cancelMaxFeePerGas: setting({
    env: 'CANCEL_MAX_FEE_PER_GAS_GWEI',
    fallback: '1000',
    doc: "Cap on the max fee and tip per gas of an operator's cancel (review decision), in gwei: it must outbid every attempt",
    parse: decimal(parseGwei, 'gwei'),
  }),
  replacementBumpPercent: setting({
    env: 'REPLACEMENT_BUMP_PERCENT',
    fallback: '20',
    doc: 'A replacement outbids the stuck attempt by this much on both fee fields (nodes need ≥ 10)',
    parse: integer(10, 1000),
  }),
  quotaMode: setting({
    env: 'QUOTA_MODE',
    fallback: 'bottleneck',
    doc: '`bottleneck`: permits and send pacing by Bottleneck (THROTTLE_*, shared through REDIS_URL). `task-queue`: the Temporal server hands out permits at THROTTLE_PER_SECOND (maxTaskQueueActivitiesPerSecond on the throttle queue), no Bottleneck',
    parse: z.enum(['bottleneck', 'task-queue'], { error: 'must be bottleneck or task-queue' }),
  }),
  poolWidth: setting({
    env: 'POOL_WIDTH',
    fallback: '8',
    doc: 'Activity slots of this process for the steps that do work',
    parse: integer(1, 10_000),
  }),
  maxInFlight: setting({
    env: 'THROTTLE_MAX_IN_FLIGHT',
    fallback: '3',
    doc: 'Sends in flight at once (permits), whatever the pool width',
    parse: integer(1, 10_000),
  }),
  perSecond: setting({
    env: 'THROTTLE_PER_SECOND',
    fallback: '10',
    doc: 'Sends started per second (token bucket rate)',
    parse: integer(1, 100_000),
  }),
  burst: setting({
    env: 'THROTTLE_BURST',
    fallback: '10',
    doc: 'Sends that may start back to back after a quiet period (bucket size)',
    parse: integer(1, 100_000),
  }),
  maxWaitMs: setting({
    env: 'THROTTLE_MAX_WAIT_MS',
    fallback: '30000',
    doc: 'Longest wait for a permit before the intent steps back and retries later',
    parse: integer(100, 90_000),
  }),
  permitTtlMs: setting({
    env: 'PERMIT_TTL_MS',
    fallback: '60000',
    doc: 'A permit whose holder never released it is reclaimed after this',
    parse: integer(1000, 3_600_000),
  }),
  rpcUnitsPerSecond: setting({
    env: 'RPC_UNITS_PER_SECOND',
    fallback: '100',
    doc: "The provider's limit per endpoint, in RPC_WEIGHTS units per second: every JSON-RPC call spends from it (the head and receipts first, then sends, look-ups that can wait last), shared through REDIS_URL",
    parse: integer(1, 10_000_000),
  }),
  rpcBurstUnits: setting({
    env: 'RPC_BURST_UNITS',
    fallback: '100',
    doc: 'Units that may go back to back after a quiet period (at least the heaviest call the relayer needs)',
    parse: integer(1, 10_000_000),
  }),
  rpcWeights: setting({
    env: 'RPC_WEIGHTS',
    fallback: 'per-call',
    doc: 'What each call costs: `per-call` (1 unit each) or `alchemy` (its throughput compute units: a send 250, most reads 10–26), then `<method>=<units>` overrides, comma-separated (e.g. `alchemy,eth_call=30`)',
    parse: methodWeights,
  }),
  redisUrl: setting({
    env: 'REDIS_URL',
    fallback: '',
    doc: 'redis://… shares the quota (Bottleneck cluster) across worker processes; unset: per process',
    parse: optional(
      z.string().regex(/^rediss?:\/\/\S+$/, { error: 'must be a redis:// or rediss:// URL' }),
    ),
  }),
  metricsPort: setting({
    env: 'METRICS_PORT',
    fallback: '',
    doc: 'Serve Prometheus metrics on this port at /metrics; unset: no metrics server',
    parse: optional(integer(1, 65535)),
  }),
  apiPort: setting({
    env: 'API_PORT',
    fallback: '',
    requiredBy: 'api',
    doc: 'Port of the HTTP API (and its /metrics, /openapi.json), in a process that serves it',
    parse: optional(integer(1, 65535)),
  }),
  apiHost: setting({
    env: 'API_HOST',
    fallback: '127.0.0.1',
    doc: 'Interface the API listens on (0.0.0.0 in a container)',
    parse: z.string().min(1),
  }),
  tenantMaxInFlight: setting({
    env: 'TENANT_MAX_IN_FLIGHT',
    fallback: '2',
    doc: "Open intents per tenant when the tenant's own limit is unset (429 tenant_limit_reached)",
    parse: integer(1, 1_000_000),
  }),
  backlogLimit: setting({
    env: 'BACKLOG_LIMIT',
    fallback: '100',
    doc: 'Intents accepted but not yet signed, all tenants, before submits get 503 pool_full',
    parse: integer(1, 10_000_000),
  }),
  temporalMetricsPort: setting({
    env: 'TEMPORAL_METRICS_PORT',
    fallback: '',
    doc: "Serve the Temporal SDK's own worker metrics (Prometheus) on this port; unset: off",
    parse: optional(integer(1, 65535)),
  }),
  logLevel: setting({
    env: 'LOG_LEVEL',
    fallback: 'INFO',
    doc: "TRACE, DEBUG, INFO, WARN or ERROR (the SDK's logs and ours)",
    parse: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'], {
      error: 'must be TRACE, DEBUG, INFO, WARN or ERROR',
    }),
  }),
  maxCachedWorkflows: setting({
    env: 'MAX_CACHED_WORKFLOWS',
    fallback: '',
    doc: "Workflows kept in this worker's cache, at least 1 (a small cache makes most workflow tasks replay their history: a determinism check). 0 is refused: local activities need their workflow kept through its task (with 0, SDK 1.24 let workflow tasks time out over and over); unset: the SDK's default",
    parse: optional(integer(1, 1_000_000)),
  }),
  crashAt: setting({
    env: 'CRASH_AT',
    fallback: '',
    doc: `Fault tests only: kill this process with SIGKILL at \`<point>[@<n>]\` (n-th time; comma-separated), points ${crashPoints.join(', ')}`,
    parse: crashPlan,
  }),
  panicAt: setting({
    env: 'PANIC_AT',
    fallback: '',
    doc: 'Fault tests only: the step throws a TypeError (a bug) right after its side effect at `<point>[@<n>]` (n-th time; comma-separated), points as CRASH_AT; the worker counts a panic and the step is retried',
    parse: crashPlan,
  }),
  orphanSweepMs: setting({
    env: 'ORPHAN_SWEEP_MS',
    fallback: '60000',
    doc: "How often the fleet's orphan sweep (a Temporal Schedule each worker ensures at start) starts the workflow of an intent or batch a crash left without one; 0: this worker leaves the schedule alone",
    parse: integer(0, 86_400_000).refine((ms) => ms === 0 || ms >= 1000, {
      error: 'must be 0 (leave the schedule alone) or at least 1000',
    }),
  }),
  webhookSecretsKey: setting({
    env: 'WEBHOOK_SECRETS_KEY',
    fallback: '',
    doc: "The key webhook endpoints' signing secrets are encrypted with at rest: 32 bytes, base64 (`openssl rand -base64 32`); the same in every API and worker process. Unset: endpoints cannot be registered, and none is delivered to",
    secret: true,
    parse: optional(
      z
        .string()
        .transform((value) => Buffer.from(value, 'base64'))
        .refine((key) => key.length === 32, { error: 'must be 32 bytes, base64' }),
    ),
  }),
  webhookAllowLoopback: setting({
    env: 'WEBHOOK_ALLOW_LOOPBACK',
    fallback: 'false',
    doc: 'Lets webhook endpoints be on this machine (http://127.0.0.1, localhost): for development only. Private and link-local addresses stay refused. true or false (1/0, yes/no, on/off too)',
    parse: onOff,
  }),
  webhookTimeoutMs: setting({
    env: 'WEBHOOK_TIMEOUT_MS',
    fallback: '15000',
    doc: 'How long one delivery attempt waits for the receiver to answer',
    parse: integer(100, 120_000),
  }),
  webhookRetryInitialMs: setting({
    env: 'WEBHOOK_RETRY_INITIAL_MS',
    fallback: '5000',
    doc: 'The wait before a failed delivery is tried again, doubling each time (at most an hour between tries)',
    parse: integer(100, 3_600_000),
  }),
  webhookRetryHours: setting({
    env: 'WEBHOOK_RETRY_HOURS',
    fallback: '72',
    doc: 'How long a delivery is retried before it goes to the dead-letter list, in hours (decimals allowed: 0.01 is 36 s)',
    parse: z
      .string()
      .regex(/^\d+(\.\d+)?$/, { error: 'must be a number of hours, such as 72 or 0.5' })
      .transform(Number)
      .pipe(
        z
          .number()
          .min(0.001, { error: 'must be at least 0.001 (3.6 s)' })
          .max(24 * 30, { error: `must be at most ${24 * 30}` }),
      ),
  }),
  webhookRotationGraceMs: setting({
    env: 'WEBHOOK_ROTATION_GRACE_MS',
    fallback: '86400000',
    doc: "After a secret rotation, how long deliveries carry the old secret's signature beside the new one",
    parse: integer(0, 30 * 86_400_000),
  }),
  webhookDispatchMs: setting({
    env: 'WEBHOOK_DISPATCH_MS',
    fallback: '500',
    doc: "How often a worker's sweep hands new events in the outbox to their delivery workflows",
    parse: integer(50, 60_000),
  }),
  webhookPoolWidth: setting({
    env: 'WEBHOOK_POOL_WIDTH',
    fallback: '16',
    doc: 'Endpoints this process delivers to at once, on a task queue of its own (`<TASK_QUEUE>.webhooks`): payments never wait for a receiver',
    parse: integer(1, 1000),
  }),
  webhookConcurrency: setting({
    env: 'WEBHOOK_CONCURRENCY',
    fallback: '8',
    doc: 'Attempts in flight at once to one endpoint, each for another intent (an intent’s events go one at a time, in order)',
    parse: integer(1, 100),
  }),
  drainTimeoutMs: setting({
    env: 'DRAIN_TIMEOUT_MS',
    fallback: '20000',
    doc: 'On SIGTERM, how long in-flight steps may finish before they are cancelled',
    parse: integer(0, 600_000),
  }),
};

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

/** The configuration table of the README. */
export function configTable(): string {
  const shown = (s: Setting<unknown>) =>
    s.requiredBy
      ? `*(required by the ${s.requiredBy} process)*`
      : s.fallback === undefined
        ? '*(required)*'
        : s.fallback === ''
          ? '*(unset)*'
          : `\`${s.fallback}\``;
  const rows = Object.values(settings).map(
    (s: Setting<unknown>) => `| \`${s.env}\` | ${shown(s)} | ${s.doc} |`,
  );
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

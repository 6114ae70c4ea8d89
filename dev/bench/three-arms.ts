import { nativeBookOf } from '../../domain/ledger-book';
import { Client, Connection } from '@temporalio/client';
import { Command, Option } from 'commander';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { countIntentsByStatus } from '../../store/intents';
import { createTenant, deposit } from '../../store/ledger';
import { settledCount, waitUntilSettled } from '../wait-until-settled';
import { table } from '../../cli/table';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { admitIntent } from '../../operations/admit-intent';
import { submitIntent } from '../../service/submit-intent';
import { parseNewIntent } from '../../domain/intent-request';
import { startLocalWorld, type LocalWorld } from '../stack/local-world';
import { startPostgres } from '../stack/postgres';
import { providerWindows, type ProviderWindow } from '../stack/provider-count';
import {
  pacedSends,
  reclaimedPermits,
  spawnNodeProcess,
  spawnWorker,
  stopSummary,
} from '../stack/worker-process';
import { withBenchStack } from './bench-stack';
import { renderChart } from './chart';
import { baselineTable, benchBaseline, prepareBaseline, type BaselineCell } from './baseline';
import { cellProfiler, profileTable, type IntentProfile } from './intent-profile';
import { findProcess, processUsage } from './process-usage';
import { percentile, steadyRate, steadyUnitsRate, usedAfter } from './rates';
import { setTimeout as sleep } from 'node:timers/promises';
import { settings as relayerSettings } from '../../workers/config/settings';
import { depositAsset, registerToken } from '../../service/assets';
import { deployTestToken } from '../stack/test-tokens';
import { WebhookReceiver } from '../stack/webhook-receiver';
import { registerEndpoint } from '../../service/webhooks';
import { secretBox } from '../../webhooks/secret-box';
import { randomBytes } from 'node:crypto';
import { essentialMethods, weightOf, type MethodWeights } from '../../throttle/rpc-weights';

/**
 * `npm run bench`: what durability costs. Three arms on the same dev server, and in each cell of a
 * grid of intents N × quota Q × processes on the same anvil and database, one after another:
 *   A the relayer's activities step by step in an in-process p-limit pool (no Temporal),
 *   B the Temporal relayer, quota by Bottleneck (shared through Redis across processes),
 *   S the same on a dev server with the CLI's stock settings (B's server is tuned: see
 *     tunedDevServerSettings),
 *   C the Temporal relayer, quota by the server (maxTaskQueueActivitiesPerSecond on the permit
 *     queue) instead of Bottleneck,
 *   P the same as B on the Temporal server built from source on PostgreSQL (SQL visibility), as
 *     `npm run cluster` runs it: what the production topology costs beside the dev server.
 * The RPC proxy in front of anvil is the ground truth: it counts every call and, where Q is
 * limited, enforces Q on sends itself as a provider would (a refusal is a 429). Ratios are
 * measured side by side in one run and printed, never asserted.
 */

type Arm = 'A' | 'B' | 'S' | 'C' | 'P';
const armNames: Record<Arm, string> = {
  A: 'A in-process pool',
  B: 'B Temporal + Bottleneck',
  S: 'S = B on the stock dev server',
  C: 'C Temporal + server quota',
  P: 'P = B on the Temporal server on PostgreSQL',
};
/** The arms that run the Temporal relayer (and have histories to read). */
const onTemporal = (arm: Arm) => arm !== 'A';

/**
 * What the provider in front of anvil counts: `sends` (eth_sendRawTransaction only, the model of
 * earlier versions of this bench, kept so their figures compare) or `all` (every call, by weight).
 */
type ProviderModel = 'sends' | 'all';

interface Cell {
  arm: Arm;
  intents: number;
  /** Per second: sends (model `sends`) or units (model `all`); undefined: unlimited. */
  quota: number | undefined;
  processes: number;
  /** anvil's block time; 0: automine (a block per transaction). */
  blockTimeSeconds: number;
  model: ProviderModel;
  /** What the intents pay: the native coin, or a 6-decimal ERC-20 (a standard one). */
  asset: BenchAsset;
  /** A webhook endpoint of the cell's tenant, and how its receiver answers: none, 2xx, never. */
  webhooks: BenchWebhooks;
  /** How the provider counts its limit: a token bucket or a rolling second. */
  providerWindow: ProviderWindow;
  /** The configured quota ÷ the provider's real limit (1: configured as published). */
  limitFactor: number;
  /**
   * Submit for this many minutes, keeping `intents` open at a time, instead of `intents` at once;
   * the result's cell then holds the count submitted.
   */
  minutes?: number;
}

type BenchWebhooks = 'none' | 'ok' | 'hang';
/** The key webhook secrets are sealed with in the bench's processes. */
const benchWebhookKey = randomBytes(32);

type BenchAsset = 'native' | 'token';
/** The token of the `token` cells, deployed on each cell's chain. */
const benchToken = { alias: 'BUSD', decimals: 6, amount: 1_000_000n };

interface Result {
  cell: Cell;
  intentsPerSecond: number;
  sendsPerSecond: number;
  /** Provider units (RPC_WEIGHTS of every call) per second, between the 10th and 90th percentile. */
  unitsPerSecond: number;
  unitsPerIntent: number;
  refusedByProvider: number;
  /** Refused calls ÷ every call that reached the provider. */
  refusedShare: number;
  /**
   * Sends (model `sends`) or units (model `all`) per second ÷ the provider's real limit, from
   * 30 s after the start to the last submission (`--minutes`) or the last call; undefined when
   * that is under 10 s.
   */
  usedAfter30s: number | undefined;
  refusedByMethod: Record<string, number>;
  rpcPerIntent: Record<string, number>;
  /** From the first send of an intent's transaction to its confirmation, in block times. */
  confirmP50Blocks: number | undefined;
  /** Step attempts that did not finish the step: failed and retried, or paced (a send too early). */
  retriesPerIntent: number;
  /** Permits never released, taken back by their expiration (each held a slot for its TTL). */
  permitsReclaimed: number;
  p50Ms: number;
  p99Ms: number;
  historyEventsPerIntent: number | undefined;
  workflowTasksPerIntent: number | undefined;
  cpuMsPerIntent: { worker: number; server: number; anvil: number };
  peakRssMb: number;
  /** CPU time of every process of the cell (workers, server, anvil, this one) ÷ wall time. */
  coresBusy: number;
  wallSeconds: number;
  /** Events the cell's webhook receiver accepted by the end (deduped), if it had one. */
  webhooksDelivered?: number;
  /** Where an intent's cost went (--profile, the Temporal arms). */
  profile?: IntentProfile;
  /** The same cell measured on the baseline's build (--baseline), just before or after. */
  baseline?: BaselineCell;
}

const poolWidth = 32;
const quotaLabel = (quota: number | undefined) =>
  quota === undefined ? 'unlimited' : `${quota}/s`;
const chainLabel = (cell: Cell) =>
  cell.blockTimeSeconds === 0 ? 'automine' : `${cell.blockTimeSeconds} s blocks`;
/** The largest budget RPC_UNITS_PER_SECOND takes: no limit in practice. */
const unmetered = 10_000_000;

/** The Temporal server a cell's arm runs on, and how the bench reaches it. */
interface Server {
  address: string;
  client: Client;
  /** Its CPU time so far (with its database's, for arm P). */
  cpuMs(): number;
  /** Its Prometheus page, where the bench profiles (--profile, the tuned dev server only). */
  metricsUrl?: string;
}

/** The provider's weights of each method (RPC_WEIGHTS, as written and as read). */
interface Provider {
  setting: string;
  weights: MethodWeights;
}

/**
 * The bucket of a provider counting every call: a second's quota (providers measure their limit
 * over a second or more), and at least the heaviest call.
 */
const burstOf = (quota: number, weights: MethodWeights) =>
  Math.max(quota, ...essentialMethods.map((method) => weightOf(weights, method)));

function workerEnv(
  world: LocalWorld,
  cell: Cell,
  server: Server,
  taskQueue: string,
  bundlePath: string,
  { weights, setting }: Provider,
) {
  const perSecond = cell.quota ?? 100_000;
  const budgeted = cell.model === 'all' && cell.quota !== undefined;
  return world.env({
    BLOCK_TIME_MS: String(cell.blockTimeSeconds * 1000),
    ...(cell.blockTimeSeconds > 0 && {
      CONFIRM_POLL_INTERVAL_MS: String(cell.blockTimeSeconds * 500),
    }),
    RPC_WEIGHTS: setting,
    // The send-only model meters sends by the permits alone, as earlier versions did.
    RPC_UNITS_PER_SECOND: String(budgeted ? cell.quota : unmetered),
    RPC_BURST_UNITS: String(budgeted ? burstOf(cell.quota!, weights) : unmetered),
    TEMPORAL_ADDRESS: server.address,
    TASK_QUEUE: taskQueue,
    WORKFLOW_BUNDLE_PATH: bundlePath,
    POOL_WIDTH: String(poolWidth),
    THROTTLE_MAX_IN_FLIGHT: cell.quota === undefined ? '10000' : '64',
    THROTTLE_PER_SECOND: String(perSecond),
    THROTTLE_BURST: String(cell.quota === undefined ? perSecond : Math.ceil(perSecond / 10)),
    THROTTLE_MAX_WAIT_MS: '60000',
    QUOTA_MODE: cell.arm === 'C' ? 'task-queue' : 'bottleneck',
    WEBHOOK_SECRETS_KEY: benchWebhookKey.toString('base64'),
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    // Several Bottleneck processes share one quota through Redis; one needs none.
    REDIS_URL: cell.processes > 1 && cell.arm !== 'C' ? world.redis!.url : '',
  });
}

async function measure(
  world: LocalWorld,
  server: Server,
  cell: Cell,
  index: number,
  bundlePath: string,
  provider: Provider,
  /** Profile the cell's workers and server (--profile), keeping the CPU profiles here. */
  profileDir?: string,
): Promise<Result> {
  const { weights } = provider;
  const { client } = server;
  const tenantId = `cell${index}`;
  const taskQueue = `bench-${index}`;
  const now = new Date();
  await createTenant(world.database, { id: tenantId, name: tenantId }, now);
  // A timed cell submits as many as it can pay for in its minutes: at most 200 a second.
  const mostIntents = cell.minutes === undefined ? cell.intents : cell.minutes * 60 * 200;
  await deposit(
    world.database,
    tenantId,
    parseEther('0.001') * BigInt(mostIntents + 1),
    now,
    nativeBookOf(world.anvil.chainId),
  );
  const receiver = cell.webhooks === 'none' ? undefined : await WebhookReceiver.start();
  if (receiver) {
    receiver.mode = cell.webhooks === 'hang' ? 'hang' : 'ok';
    const { secret } = await registerEndpoint(
      {
        database: world.database,
        webhooks: {
          box: secretBox(benchWebhookKey),
          policy: { allowLoopback: true },
          timeoutMs: 15_000,
          rotationGraceMs: 0,
        },
      },
      { role: 'tenant', tenantId, keyId: 'bench', label: 'bench' },
      { url: receiver.url },
    );
    receiver.holdSecrets([secret]);
  }
  const token = cell.asset === 'token';
  if (token) {
    await depositAsset(
      world.database,
      {
        tenantId,
        chainId: world.anvil.chainId,
        asset: benchToken.alias,
        amount: benchToken.amount * BigInt(mostIntents + 1),
      },
      now,
    );
  }
  const proxy = world.proxy!;
  proxy.calls.splice(0);
  const realLimit = cell.quota === undefined ? undefined : cell.quota / cell.limitFactor;
  proxy.enforceQuota(
    realLimit === undefined
      ? undefined
      : cell.model === 'sends'
        ? {
            perSecond: realLimit,
            burst: Math.ceil(realLimit / 10),
            answer: 'rpc-error',
            window: cell.providerWindow,
            methods: ['eth_sendRawTransaction'],
          }
        : {
            perSecond: realLimit,
            burst: burstOf(realLimit, weights),
            answer: 'http-429',
            window: cell.providerWindow,
            weights: weights.byMethod,
            otherMethods: weights.otherMethods,
          },
  );
  const settledBefore = settledCount(await countIntentsByStatus(world.database.kysely));
  const env = workerEnv(world, cell, server, taskQueue, bundlePath, provider);
  const profiler =
    profileDir !== undefined && onTemporal(cell.arm)
      ? cellProfiler(join(profileDir, `cell-${index + 1}`), server.metricsUrl)
      : undefined;
  const processes = await Promise.all(
    Array.from({ length: cell.processes }, (_, shard) =>
      cell.arm === 'A'
        ? spawnNodeProcess(
            'dev/bench/in-process-pool.ts',
            {
              ...env,
              BENCH_TENANT: tenantId,
              BENCH_COUNT: String(cell.intents),
              BENCH_SHARD: String(shard),
              BENCH_SHARDS: String(cell.processes),
            },
            /pool ready/,
          )
        : spawnWorker(env, { nodeFlags: profiler?.nodeFlags }),
    ),
  );
  await profiler?.begin();
  // From here on: what the work costs, not what starting the processes did.
  const workersBefore = processes.map((p) => processUsage(p.child.pid!).cpuMs);
  const serverBefore = server.cpuMs();
  const anvilBefore = processUsage(world.anvil.pid).cpuMs;
  const benchBefore = process.cpuUsage();
  const started = Date.now();

  const deps = { database: world.database, client, taskQueue };
  let submitted = 0;
  const submit = (count: number) =>
    Promise.all(
      Array.from({ length: count }, () => {
        const k = submitted++;
        const request = {
          tenantId,
          chainId: world.anvil.chainId,
          from: world.wallets[k % world.wallets.length],
          to: privateKeyToAccount(generatePrivateKey()).address,
          ...(token
            ? { asset: benchToken.alias, amount: benchToken.amount.toString() }
            : { amount: parseEther('0.001').toString() }),
        };
        return cell.arm === 'A'
          ? admitIntent(world.database, parseNewIntent(request), {}, undefined, () => new Date())
          : submitIntent(deps, request);
      }),
    );
  const settledSoFar = async () =>
    settledCount(await countIntentsByStatus(world.database.kysely)) - settledBefore;
  let reportedAt = Date.now();
  const report = (done: number, of: string) => {
    if (Date.now() - reportedAt < 5000) return;
    reportedAt = Date.now();
    console.log(`    ${done}/${of} settled, ${((Date.now() - started) / 1000).toFixed(0)} s`);
  };
  let submissionsEnd = Number.POSITIVE_INFINITY;
  if (cell.minutes === undefined) {
    while (submitted < cell.intents) await submit(Math.min(50, cell.intents - submitted));
  } else {
    // Never fewer than `intents` open: the relayer always has work waiting for the quota.
    const until = started + cell.minutes * 60_000;
    while (Date.now() < until) {
      const done = await settledSoFar();
      const room = cell.intents - (submitted - done);
      if (room > 0) await submit(Math.min(50, room));
      report(done, `${submitted} submitted`);
      await sleep(200);
    }
    submissionsEnd = Date.now();
  }
  const intents = submitted;
  await waitUntilSettled(world.database, settledBefore + intents, {
    pollMs: 100,
    onProgress: (counts) => report(settledCount(counts) - settledBefore, String(intents)),
  });
  await profiler?.end();
  const wallSeconds = (Date.now() - started) / 1000;
  const usage = processes.map((p) => processUsage(p.child.pid!));
  const workerMs = usage.reduce((sum, u, i) => sum + u.cpuMs - workersBefore[i]!, 0);
  const serverMs = server.cpuMs() - serverBefore;
  const anvilMs = processUsage(world.anvil.pid).cpuMs - anvilBefore;
  const benchCpu = process.cpuUsage(benchBefore);
  const benchMs = (benchCpu.user + benchCpu.system) / 1000;
  for (const p of processes) p.signal('SIGTERM');
  await Promise.all(processes.map((p) => p.exited));
  const webhooksDelivered = receiver?.deduped().length;
  await receiver?.close();
  const stepRetries = processes.reduce(
    (sum, p) => sum + (stopSummary(p.output())?.retry ?? 0) + pacedSends(p.output()),
    0,
  );

  const rows = await world.database.kysely
    .selectFrom('intents')
    .select(['id', 'status', 'created_at', 'updated_at', 'tx_hash'])
    .where('tenant_id', '=', tenantId)
    .execute();
  const notConfirmed = rows.filter((row) => row.status !== 'confirmed');
  if (notConfirmed.length > 0) {
    console.log(`    ${notConfirmed.length} not confirmed: ${notConfirmed[0]!.status}`);
  }
  const finished = rows.map((row) => new Date(row.updated_at).getTime()).sort((a, b) => a - b);
  const latencies = rows
    .map((row) => new Date(row.updated_at).getTime() - new Date(row.created_at).getTime())
    .sort((a, b) => a - b);
  const counts = proxy.countsByMethod();
  const rpcPerIntent = Object.fromEntries(
    Object.entries(counts).map(([method, n]) => [method, n / intents]),
  );
  const unitsOf = (method: string) => weightOf(weights, method);
  const firstSent = new Map<string, number>();
  for (const call of proxy.callsOf('eth_sendRawTransaction')) {
    if (call.txHash && !firstSent.has(call.txHash)) {
      firstSent.set(call.txHash, proxy.wallTimeOf(call.startedAt));
    }
  }
  const confirmBlocks = rows
    .flatMap((row) => {
      const sentAt = row.tx_hash ? firstSent.get(row.tx_hash) : undefined;
      if (row.status !== 'confirmed' || sentAt === undefined) return [];
      return [(new Date(row.updated_at).getTime() - sentAt) / (cell.blockTimeSeconds * 1000)];
    })
    .sort((a, b) => a - b);
  return {
    cell: { ...cell, intents },
    intentsPerSecond: steadyRate(finished.map((at) => ({ method: 'done', startedAt: at }))),
    sendsPerSecond: steadyRate(proxy.callsOf('eth_sendRawTransaction')),
    unitsPerSecond: steadyUnitsRate(proxy.calls, unitsOf),
    unitsPerIntent:
      Object.entries(counts).reduce((sum, [method, n]) => sum + n * unitsOf(method), 0) / intents,
    refusedByProvider: proxy.quotaRefusals(),
    refusedShare: proxy.calls.length === 0 ? 0 : proxy.quotaRefusals() / proxy.calls.length,
    usedAfter30s: usedAfter(
      cell.model === 'sends' ? proxy.callsOf('eth_sendRawTransaction') : proxy.calls,
      cell.model === 'sends' ? () => 1 : unitsOf,
      { from: started + 30_000 - proxy.wallTimeOf(0), to: submissionsEnd - proxy.wallTimeOf(0) },
      realLimit,
    ),
    refusedByMethod: proxy.quotaRefusalsByMethod(),
    rpcPerIntent,
    confirmP50Blocks: cell.blockTimeSeconds > 0 ? percentile(confirmBlocks, 0.5) : undefined,
    retriesPerIntent: stepRetries / intents,
    permitsReclaimed: processes.reduce((sum, p) => sum + reclaimedPermits(p.output()), 0),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    ...(onTemporal(cell.arm)
      ? await historyShape(
          client,
          rows.map((row) => row.id),
        )
      : { historyEventsPerIntent: undefined, workflowTasksPerIntent: undefined }),
    cpuMsPerIntent: {
      worker: workerMs / intents,
      server: serverMs / intents,
      anvil: anvilMs / intents,
    },
    peakRssMb: Math.max(...usage.map((u) => u.peakRssBytes)) / 2 ** 20,
    coresBusy: (workerMs + serverMs + anvilMs + benchMs) / (wallSeconds * 1000),
    wallSeconds,
    ...(webhooksDelivered !== undefined && { webhooksDelivered }),
    ...(profiler && { profile: profiler.result(intents) }),
  };
}

/**
 * The token of the `token` cells on a fresh world's chain: deployed, held by every hot wallet,
 * registered for the relayer (its calls are made before the cell's, outside the count).
 */
async function deployBenchToken(world: LocalWorld): Promise<void> {
  const token = await deployTestToken(world.anvil, 'standard', {
    symbol: benchToken.alias,
    decimals: benchToken.decimals,
  });
  for (const wallet of world.wallets) {
    await token.write('mint', [wallet, benchToken.amount * 1_000_000n]);
  }
  await registerToken(
    { database: world.database, chains: world.chains },
    { chainId: world.anvil.chainId, address: token.address, alias: benchToken.alias },
  );
}

/** Mean history events and workflow tasks (completed) of (up to) 20 of the cell's workflows. */
async function historyShape(
  client: Client,
  ids: string[],
): Promise<{ historyEventsPerIntent: number; workflowTasksPerIntent: number }> {
  const histories = await Promise.all(
    ids
      .slice(0, 20)
      .map(
        async (id) =>
          (await client.workflow.getHandle(paymentIntentWorkflowId(id)).fetchHistory()).events ??
          [],
      ),
  );
  const mean = (count: (events: (typeof histories)[number]) => number) =>
    histories.reduce((sum, events) => sum + count(events), 0) / Math.max(1, histories.length);
  return {
    historyEventsPerIntent: mean((events) => events.length),
    workflowTasksPerIntent: mean(
      (events) => events.filter((event) => event.workflowTaskCompletedEventAttributes).length,
    ),
  };
}

const methodShort: Record<string, string> = {
  eth_sendRawTransaction: 'send',
  eth_getTransactionReceipt: 'receipt',
  eth_getTransactionCount: 'nonce',
  eth_getTransactionByHash: 'tx',
  eth_blockNumber: 'block#',
  eth_getBlockByNumber: 'block',
  eth_estimateGas: 'gas',
  eth_maxPriorityFeePerGas: 'tip',
  eth_feeHistory: 'fees',
  eth_chainId: 'chainId',
  eth_gasPrice: 'gasPrice',
  eth_getBlockReceipts: 'block receipts',
  eth_getCode: 'code',
  eth_call: 'call',
};

function refusalSummary(r: Result): string {
  const byMethod = Object.entries(r.refusedByMethod)
    .sort((a, b) => b[1] - a[1])
    .map(([method, n]) => `${methodShort[method] ?? method} ${n}`);
  return byMethod.length === 0 ? '0' : `${r.refusedByProvider} (${byMethod.join(', ')})`;
}

function rpcSummary(perIntent: Record<string, number>): string {
  const total = Object.values(perIntent).reduce((sum, n) => sum + n, 0);
  const top = Object.entries(perIntent)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([method, n]) => `${methodShort[method] ?? method} ${n.toFixed(1)}`);
  return `${total.toFixed(1)}: ${top.join(', ')}`;
}

const headings = [
  'arm',
  'asset',
  'webhooks',
  'chain',
  'provider counts',
  'N',
  'Q',
  'procs',
  'intents/s',
  'sends/s ÷ Q',
  'units/s ÷ Q',
  "used ÷ provider's real limit",
  'after 30 s',
  '429s (by method) · % of calls',
  'RPC calls/intent (top)',
  'units/intent',
  'confirm p50 (blocks)',
  'step retries/intent',
  'permits expired',
  'p50 / p99 latency',
  'history events/intent',
  'workflow tasks/intent',
  'CPU ms/intent worker · server · anvil',
  'peak RSS MB',
  `cores busy (of ${cpus().length})`,
  'wall s',
];

function rowOf(r: Result): string[] {
  const { cell } = r;
  return [
    armNames[cell.arm],
    cell.asset === 'token' ? `token (${benchToken.alias})` : 'native',
    cell.webhooks === 'none'
      ? '–'
      : `${cell.webhooks === 'hang' ? 'hanging' : '2xx'}, ${r.webhooksDelivered} delivered`,
    chainLabel(cell),
    `${cell.model === 'sends' ? 'sends' : 'all calls'}, ${cell.providerWindow}` +
      (cell.limitFactor === 1 || cell.quota === undefined
        ? ''
        : `, real ${quotaLabel(cell.quota / cell.limitFactor)}`),
    String(cell.intents),
    quotaLabel(cell.quota),
    String(cell.processes),
    r.intentsPerSecond.toFixed(1),
    cell.quota === undefined || cell.model === 'all'
      ? '–'
      : (r.sendsPerSecond / cell.quota).toFixed(3),
    cell.quota === undefined || cell.model === 'sends'
      ? '–'
      : (r.unitsPerSecond / cell.quota).toFixed(3),
    cell.quota === undefined ? '–' : (usedOfQuota(r)! * cell.limitFactor).toFixed(3),
    r.usedAfter30s === undefined ? '–' : r.usedAfter30s.toFixed(3),
    `${refusalSummary(r)} · ${(r.refusedShare * 100).toFixed(2)}%`,
    rpcSummary(r.rpcPerIntent),
    r.unitsPerIntent.toFixed(1),
    r.confirmP50Blocks === undefined ? '–' : r.confirmP50Blocks.toFixed(2),
    r.retriesPerIntent.toFixed(2),
    String(r.permitsReclaimed),
    `${(r.p50Ms / 1000).toFixed(1)} s / ${(r.p99Ms / 1000).toFixed(1)} s`,
    r.historyEventsPerIntent === undefined ? '–' : r.historyEventsPerIntent.toFixed(0),
    r.workflowTasksPerIntent === undefined ? '–' : r.workflowTasksPerIntent.toFixed(1),
    [r.cpuMsPerIntent.worker, r.cpuMsPerIntent.server, r.cpuMsPerIntent.anvil]
      .map((ms) => ms.toFixed(0))
      .join(' · '),
    r.peakRssMb.toFixed(0),
    r.coresBusy.toFixed(2),
    r.wallSeconds.toFixed(1),
  ];
}

/** What a cell used of its quota: sends (model `sends`) or units (model `all`) per second ÷ Q. */
const usedOfQuota = (r: Result): number | undefined =>
  r.cell.quota === undefined
    ? undefined
    : (r.cell.model === 'sends' ? r.sendsPerSecond : r.unitsPerSecond) / r.cell.quota;

/** The ratios worth a glance: B÷A throughput at unlimited Q, and each arm's efficiency per Q. */
function headlines(results: Result[]): string[] {
  const lines: string[] = [];
  const find = (arm: Arm, like: Cell, webhooks: BenchWebhooks = like.webhooks) =>
    results.find(
      (r) =>
        r.cell.arm === arm &&
        r.cell.intents === like.intents &&
        r.cell.quota === like.quota &&
        r.cell.processes === like.processes &&
        r.cell.asset === like.asset &&
        r.cell.providerWindow === like.providerWindow &&
        r.cell.limitFactor === like.limitFactor &&
        r.cell.webhooks === webhooks,
    );
  for (const withReceiver of results.filter((r) => r.cell.webhooks !== 'none')) {
    const without = find(withReceiver.cell.arm, withReceiver.cell, 'none');
    if (!without) continue;
    lines.push(
      `${withReceiver.cell.arm} with a ${withReceiver.cell.webhooks === 'hang' ? 'hanging' : '2xx'} webhook receiver ÷ without, ` +
        `N ${withReceiver.cell.intents}, Q ${quotaLabel(withReceiver.cell.quota)}: ` +
        `${(withReceiver.intentsPerSecond / without.intentsPerSecond).toFixed(2)} ` +
        `(${withReceiver.webhooksDelivered} events delivered)`,
    );
  }
  for (const b of results.filter(
    (r) => r.cell.arm === 'B' && r.cell.quota === undefined && r.cell.webhooks === 'none',
  )) {
    const a = find('A', b.cell);
    const c = find('C', b.cell);
    if (!a) continue;
    lines.push(
      `B÷A throughput, N ${b.cell.intents}, unlimited Q, ${b.cell.processes} proc: ` +
        `${(b.intentsPerSecond / a.intentsPerSecond).toFixed(2)}` +
        (c ? ` (C÷A ${(c.intentsPerSecond / a.intentsPerSecond).toFixed(2)})` : ''),
    );
  }
  for (const p of results.filter((r) => r.cell.arm === 'P')) {
    const b = find('B', p.cell);
    if (!b) continue;
    const cpu = (r: Result) => r.cpuMsPerIntent.worker + r.cpuMsPerIntent.server;
    lines.push(
      `P÷B (the Temporal server on PostgreSQL ÷ the dev server), N ${p.cell.intents}, ` +
        `Q ${quotaLabel(p.cell.quota)}, ${p.cell.processes} proc: throughput ` +
        `${(p.intentsPerSecond / b.intentsPerSecond).toFixed(2)}, p50 latency ` +
        `${(p.p50Ms / b.p50Ms).toFixed(2)}, worker + server CPU per intent ` +
        `${(cpu(p) / cpu(b)).toFixed(2)} (server ${p.cpuMsPerIntent.server.toFixed(0)} vs ` +
        `${b.cpuMsPerIntent.server.toFixed(0)} ms)`,
    );
  }
  for (const model of ['sends', 'all'] as const) {
    const ofModel = results.filter((r) => r.cell.model === model);
    const quotas = [...new Set(ofModel.flatMap((r) => (r.cell.quota ? [r.cell.quota] : [])))];
    for (const quota of quotas.sort((x, y) => x - y)) {
      const parts = (['A', 'B', 'C'] as Arm[]).flatMap((arm) => {
        const cells = ofModel.filter((r) => r.cell.arm === arm && r.cell.quota === quota);
        if (cells.length === 0) return [];
        const mean = cells.reduce((sum, r) => sum + usedOfQuota(r)!, 0) / cells.length;
        const refused = cells.reduce((sum, r) => sum + r.refusedByProvider, 0);
        return [`${arm} ${mean.toFixed(3)} (${refused} 429s)`];
      });
      lines.push(
        model === 'sends'
          ? `efficiency (sends/s ÷ Q) at Q ${quota}/s: ${parts.join(', ')}`
          : `budget use (units/s ÷ Q, every call counted) at Q ${quota} units/s: ${parts.join(', ')}`,
      );
    }
  }
  for (const r of results.filter((r) => r.cell.blockTimeSeconds > 0 && r.cell.arm === 'B')) {
    const calls = Object.values(r.rpcPerIntent).reduce((sum, n) => sum + n, 0);
    lines.push(
      `B on ${chainLabel(r.cell)}, N ${r.cell.intents}, Q ${quotaLabel(r.cell.quota)}, ` +
        `${r.cell.processes} proc: ${calls.toFixed(2)} RPC calls and ${r.unitsPerIntent.toFixed(1)} ` +
        `units per intent, confirmation p50 ${r.confirmP50Blocks?.toFixed(2)} block times`,
    );
  }
  return lines;
}

function markdown(results: Result[], settings: string): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    '# Benchmark: in-process pool vs Temporal relayer vs server-side quota',
    '',
    `Generated by \`npm run bench -- ${settings}\` on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    ...headlines(results).map((h) => `- ${h}`),
    '',
    line(headings),
    line(headings.map(() => '---')),
    ...results.map((r) => line(rowOf(r))),
    '',
    '![throughput and quota efficiency per arm](bench.png)',
    '',
  ].join('\n');
}

const list = (value: string) => value.split(',').map((part) => part.trim());

/** The defaults of the flags that shape a cell (as every earlier bench had them too). */
const cellDefaults = {
  blockTime: '0',
  model: 'sends',
  weights: 'per-call',
  asset: 'native',
  webhooks: 'none',
  providerWindow: 'bucket',
  limitFactor: '1',
} as const;

async function main(): Promise<void> {
  const program = new Command('bench')
    .description('three arms over a grid of intents × quota × processes')
    .addOption(new Option('--n <counts>', 'intents per cell').default('100,1000'))
    .addOption(
      new Option('--q <quotas>', 'sends/s per cell, or "unlimited"').default(
        '20,100,500,unlimited',
      ),
    )
    .addOption(new Option('--processes <counts>', 'worker processes per cell').default('1,2'))
    .addOption(new Option('--arms <arms>', 'arms to run: A, B, S, C, P').default('A,B,S,C'))
    .addOption(
      new Option('--block-time <seconds>', "anvil's block time per cell; 0: automine").default(
        cellDefaults.blockTime,
      ),
    )
    .addOption(
      new Option(
        '--model <models>',
        'what the provider counts: "sends" (sends only, as earlier versions) or "all" (every call by weight; Q is units/s)',
      ).default(cellDefaults.model),
    )
    .addOption(
      new Option('--weights <table>', "the provider's weights, as RPC_WEIGHTS").default(
        cellDefaults.weights,
      ),
    )
    .addOption(
      new Option(
        '--asset <assets>',
        'what the intents pay: native, token (a 6-decimal ERC-20)',
      ).default(cellDefaults.asset),
    )
    .addOption(
      new Option(
        '--webhooks <receivers>',
        "a webhook endpoint per cell's tenant: none, ok (answers 2xx), hang (never answers)",
      ).default(cellDefaults.webhooks),
    )
    .addOption(
      new Option('--store <store>', 'the relayer database')
        .choices(['sqlite', 'postgres'])
        .default('sqlite'),
    )
    .addOption(
      new Option(
        '--provider-window <windows>',
        'how the provider counts: bucket (a token bucket) or sliding (a rolling second)',
      ).default(cellDefaults.providerWindow),
    )
    .addOption(
      new Option(
        '--limit-factor <factors>',
        "the configured quota ÷ the provider's real limit (2: configured twice too high)",
      ).default(cellDefaults.limitFactor),
    )
    .addOption(
      new Option(
        '--minutes <minutes>',
        'submit for this long in each cell, keeping N intents open, instead of N at once',
      ),
    )
    .addOption(
      new Option(
        '--profile',
        "where an intent's cost goes: the workers' threads busy by kind of code (CPU profiles, kept in --out) and the dev server's persistence requests by operation",
      ),
    )
    .addOption(
      new Option(
        '--baseline <commit>',
        "also run each Temporal cell on this commit's build (its own bench, just before or after ours, alternating) and print the ratios",
      ),
    )
    .addOption(new Option('--out <dir>', 'where the table and chart go').default('docs/bench'))
    .addOption(new Option('--json <file>', 'also write every cell, every column, as JSON'))
    .parse();
  const options = program.opts<{
    n: string;
    q: string;
    processes: string;
    arms: string;
    store: 'sqlite' | 'postgres';
    out: string;
    json?: string;
    blockTime: string;
    model: string;
    weights: string;
    asset: string;
    webhooks: string;
    providerWindow: string;
    limitFactor: string;
    minutes?: string;
    profile?: boolean;
    baseline?: string;
  }>();
  const problems: string[] = [];
  const numbers = (flag: string, value: string) =>
    list(value).map((part) => {
      if (!/^[1-9]\d*$/.test(part))
        problems.push(`${flag}: "${part}" is not a whole number above 0`);
      return Number(part);
    });
  const counts = numbers('--n', options.n);
  const processCounts = numbers('--processes', options.processes);
  const quotas = list(options.q).map((part) =>
    part === 'unlimited' ? undefined : numbers('--q', part)[0],
  );
  const arms = list(options.arms) as Arm[];
  for (const arm of arms)
    if (!(arm in armNames)) problems.push(`--arms: "${arm}" is not A, B, S, C or P`);
  const blockTimes = list(options.blockTime).map((part) => {
    if (!/^\d+$/.test(part))
      problems.push(`--block-time: "${part}" is not a whole number of seconds`);
    return Number(part);
  });
  const models = list(options.model) as ProviderModel[];
  for (const model of models)
    if (model !== 'sends' && model !== 'all')
      problems.push(`--model: "${model}" is not sends or all`);
  const benchAssets = list(options.asset) as BenchAsset[];
  for (const asset of benchAssets)
    if (asset !== 'native' && asset !== 'token')
      problems.push(`--asset: "${asset}" is not native or token`);
  const receiverModes = list(options.webhooks) as BenchWebhooks[];
  for (const mode of receiverModes)
    if (!['none', 'ok', 'hang'].includes(mode))
      problems.push(`--webhooks: "${mode}" is not none, ok or hang`);
  const windows = list(options.providerWindow) as ProviderWindow[];
  for (const window of windows)
    if (!providerWindows.includes(window))
      problems.push(`--provider-window: "${window}" is not bucket or sliding`);
  const limitFactors = list(options.limitFactor).map((part) => {
    const factor = Number(part);
    if (!Number.isFinite(factor) || factor < 1)
      problems.push(`--limit-factor: "${part}" is not a number of 1 or more`);
    return factor;
  });
  const minutes = options.minutes === undefined ? undefined : Number(options.minutes);
  if (minutes !== undefined && !(Number.isFinite(minutes) && minutes > 0))
    problems.push(`--minutes: "${options.minutes}" is not a number of minutes above 0`);
  if (minutes !== undefined && arms.includes('A'))
    problems.push('--minutes: arm A runs a fixed N (its pool is handed the count); leave A out');
  const parsedWeights = relayerSettings.rpcWeights.parse.safeParse(options.weights);
  if (!parsedWeights.success) {
    problems.push(`--weights: ${parsedWeights.error.issues.map((i) => i.message).join(', ')}`);
  }
  if (options.baseline !== undefined && !arms.some(onTemporal))
    problems.push('--baseline: compares the Temporal arms; give one of B, S, C, P');
  if (problems.length > 0) {
    console.error(`bench: ${problems.join('; ')}`);
    process.exit(2);
  }

  // Each grid cell runs every arm, in an order that rotates from cell to cell, on one fresh
  // anvil and database: the arms share the chain and the store, and no cell inherits a chain
  // and a database grown by the cells before it (anvil slows down as its chain grows).
  const provider: Provider = { setting: options.weights, weights: parsedWeights.data! };
  const groups: Cell[][] = [];
  for (const blockTimeSeconds of blockTimes)
    for (const model of models)
      for (const asset of benchAssets)
        for (const webhooks of receiverModes)
          for (const intents of counts)
            for (const quota of quotas)
              for (const processes of processCounts)
                for (const providerWindow of windows)
                  for (const limitFactor of limitFactors) {
                    const rotation = groups.length;
                    groups.push(
                      arms.map((_, i) => ({
                        arm: arms[(i + rotation) % arms.length]!,
                        intents,
                        quota,
                        processes,
                        blockTimeSeconds,
                        model,
                        asset,
                        webhooks,
                        providerWindow,
                        limitFactor,
                        ...(minutes !== undefined && { minutes }),
                      })),
                    );
                  }
  const total = groups.flat().length;

  const profileDir = options.profile ? join(options.out, 'profiles') : undefined;
  const baseline =
    options.baseline === undefined
      ? undefined
      : prepareBaseline(options.baseline, (message) => console.log(message));
  const results = await withBenchStack(
    async ({ temporalAddress, temporalMetricsUrl, stockAddress, cluster, bundlePath }) => {
      const postgres = options.store === 'postgres' ? await startPostgres() : undefined;
      const connect = async (address: string, cpuMs?: () => number): Promise<Server> => {
        const pid = findProcess(['start-dev', '--port', address.split(':')[1]!]);
        return {
          address,
          client: new Client({ connection: await Connection.connect({ address }) }),
          cpuMs: cpuMs ?? (() => (pid === undefined ? 0 : processUsage(pid).cpuMs)),
        };
      };
      const tuned = { ...(await connect(temporalAddress)), metricsUrl: temporalMetricsUrl };
      const stock = stockAddress === undefined ? undefined : await connect(stockAddress);
      const onPostgres = cluster && (await connect(cluster.address, cluster.cpuMs));
      const measured: Result[] = [];
      try {
        for (const group of groups) {
          const { blockTimeSeconds } = group[0]!;
          const world = await startLocalWorld({
            temporalAddress,
            ...(blockTimeSeconds > 0 && { anvil: { blockTimeSeconds } }),
            postgresServerUrl: postgres?.url,
            proxy: true,
            redis: true,
            wallets: 8,
            tenants: {},
          });
          try {
            if (group[0]!.asset === 'token') await deployBenchToken(world);
            for (const cell of group) {
              const index = measured.length;
              console.log(
                `[${index + 1}/${total}] ${armNames[cell.arm]}: N ${cell.intents}` +
                  (cell.minutes === undefined ? ', ' : ` open for ${cell.minutes} min, `) +
                  `Q ${quotaLabel(cell.quota)} (${cell.model}), ${cell.processes} process(es), ` +
                  `${chainLabel(cell)}, ${cell.asset}, webhooks ${cell.webhooks}, provider ` +
                  `${cell.providerWindow}${cell.limitFactor === 1 ? '' : ` at 1/${cell.limitFactor} of Q`}`,
              );
              const server = cell.arm === 'S' ? stock! : cell.arm === 'P' ? onPostgres! : tuned;
              // The baseline's run of the cell comes before ours on odd cells, after on even.
              const onBaseline = async () =>
                baseline && onTemporal(cell.arm)
                  ? (
                      await benchBaseline(
                        baseline,
                        baselineArguments(cell, provider),
                        join(options.out, 'baseline', `cell-${index + 1}`),
                      )
                    )[0]
                  : undefined;
              const before = index % 2 === 1 ? await onBaseline() : undefined;
              const result = await measure(
                world,
                server,
                cell,
                index,
                bundlePath,
                provider,
                profileDir,
              );
              const after = index % 2 === 0 ? await onBaseline() : undefined;
              const cellBaseline = before ?? after;
              measured.push(cellBaseline ? { ...result, baseline: cellBaseline } : result);
            }
          } finally {
            await world.stop();
          }
        }
        return measured;
      } finally {
        await Promise.all(
          [tuned, stock, onPostgres].map((server) => server?.client.connection.close()),
        );
        await postgres?.stop();
      }
    },
    { stock: arms.includes('S'), cluster: arms.includes('P'), serverMetrics: options.profile },
  );

  const summary = table(
    headings,
    headings.map((heading) =>
      [
        'arm',
        'chain',
        'provider counts',
        'RPC calls/intent (top)',
        '429s (by method) · % of calls',
      ].includes(heading)
        ? 'left'
        : 'right',
    ),
  );
  for (const r of results) summary.push(rowOf(r));
  console.log(summary.toString());
  for (const line of headlines(results)) console.log(line);
  if (baseline) {
    const pairs = results.flatMap((r) =>
      r.baseline ? [{ label: cellLabel(r), current: jsonOf(r), baseline: r.baseline }] : [],
    );
    console.log(baselineTable(baseline.sha, pairs).toString());
  }
  if (profileDir !== undefined) {
    const profiled = results.flatMap((r) =>
      r.profile ? [{ label: cellLabel(r), profile: r.profile }] : [],
    );
    console.log(
      "where an intent's cost went: the worker's threads busy (ms per intent, sampled: running or blocked in a call) by kind of code, and the server's persistence requests per intent",
    );
    console.log(profileTable(profiled).toString());
    console.log(`CPU profiles (open in Chrome's DevTools): ${profileDir}`);
  }

  const settings =
    `--n ${options.n} --q ${options.q} --processes ${options.processes} ` +
    `--arms ${options.arms} --store ${options.store} --block-time ${options.blockTime} ` +
    `--model ${options.model} --weights ${options.weights} --asset ${options.asset} ` +
    `--webhooks ${options.webhooks} --provider-window ${options.providerWindow} ` +
    `--limit-factor ${options.limitFactor}` +
    (minutes === undefined ? '' : ` --minutes ${minutes}`) +
    (options.profile ? ' --profile' : '') +
    (baseline ? ` --baseline ${baseline.sha.slice(0, 7)}` : '');
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'README.md'), markdown(results, settings));
  writeFileSync(
    join(options.out, 'bench.png'),
    await renderChart(
      results.map((r) => ({
        cell: `N ${r.cell.intents} · Q ${quotaLabel(r.cell.quota)} · ${r.cell.processes}p · ${chainLabel(r.cell)} · ${r.cell.model} · ${r.cell.asset} · webhooks ${r.cell.webhooks}`,
        arm: armNames[r.cell.arm],
        intentsPerSecond: r.intentsPerSecond,
        ...(r.cell.quota !== undefined && { efficiency: usedOfQuota(r) }),
      })),
    ),
  );
  console.log(
    `table and chart: ${join(options.out, 'README.md')}, ${join(options.out, 'bench.png')}`,
  );
  if (options.json) {
    writeFileSync(options.json, `${JSON.stringify(results.map(jsonOf), null, 2)}\n`);
    console.log(`JSON: ${options.json}`);
  }
}

/** One cell in plain units, every column of the table, for a dashboard or a CI job. */
const jsonOf = (r: Result) => ({
  arm: r.cell.arm,
  armName: armNames[r.cell.arm],
  intents: r.cell.intents,
  quotaPerSecond: r.cell.quota ?? null,
  processes: r.cell.processes,
  asset: r.cell.asset,
  webhooks: r.cell.webhooks,
  webhooksDelivered: r.webhooksDelivered ?? null,
  intentsPerSecond: r.intentsPerSecond,
  blockTimeSeconds: r.cell.blockTimeSeconds,
  providerCounts: r.cell.model,
  providerWindow: r.cell.providerWindow,
  limitFactor: r.cell.limitFactor,
  sendsPerSecondOverQuota: r.cell.quota === undefined ? null : r.sendsPerSecond / r.cell.quota,
  unitsPerSecondOverQuota: r.cell.quota === undefined ? null : r.unitsPerSecond / r.cell.quota,
  sendsPerSecond: r.sendsPerSecond,
  unitsPerSecond: r.unitsPerSecond,
  unitsPerIntent: r.unitsPerIntent,
  minutes: r.cell.minutes ?? null,
  providerRefusals: r.refusedByProvider,
  providerRefusedShareOfCalls: r.refusedShare,
  usedOfRealLimitAfter30s: r.usedAfter30s ?? null,
  providerRefusalsByMethod: r.refusedByMethod,
  rpcCallsPerIntentByMethod: r.rpcPerIntent,
  confirmationP50Blocks: r.confirmP50Blocks ?? null,
  stepRetriesPerIntent: r.retriesPerIntent,
  permitsReclaimedByExpiration: r.permitsReclaimed,
  latencyP50Ms: r.p50Ms,
  latencyP99Ms: r.p99Ms,
  historyEventsPerIntent: r.historyEventsPerIntent ?? null,
  workflowTasksPerIntent: r.workflowTasksPerIntent ?? null,
  cpuMsPerIntent: r.cpuMsPerIntent,
  peakRssMb: r.peakRssMb,
  coresBusy: r.coresBusy,
  wallSeconds: r.wallSeconds,
  profile: r.profile ?? null,
  baseline: r.baseline ?? null,
});

const cellLabel = (r: Result) =>
  `${r.cell.arm} N ${r.cell.intents} Q ${quotaLabel(r.cell.quota)} ${r.cell.processes}p`;

/** The cell's flags for a baseline's bench: the defaults left out (an older bench may lack them). */
function baselineArguments(cell: Cell, provider: Provider): string[] {
  const unlessDefault = (flag: string, value: string, fallback: string) =>
    value === fallback ? [] : [flag, value];
  return [
    '--arms',
    cell.arm,
    '--n',
    String(cell.intents),
    '--q',
    cell.quota === undefined ? 'unlimited' : String(cell.quota),
    '--processes',
    String(cell.processes),
    ...unlessDefault('--block-time', String(cell.blockTimeSeconds), cellDefaults.blockTime),
    ...unlessDefault('--model', cell.model, cellDefaults.model),
    ...unlessDefault('--weights', provider.setting, cellDefaults.weights),
    ...unlessDefault('--asset', cell.asset, cellDefaults.asset),
    ...unlessDefault('--webhooks', cell.webhooks, cellDefaults.webhooks),
    ...unlessDefault('--provider-window', cell.providerWindow, cellDefaults.providerWindow),
    ...unlessDefault('--limit-factor', String(cell.limitFactor), cellDefaults.limitFactor),
    ...(cell.minutes === undefined ? [] : ['--minutes', String(cell.minutes)]),
  ];
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

import { loadavg } from 'node:os';
import { slowIntent } from './slowest-intents';
import { nativeBookOf } from '../../domain/ledger-book';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { countIntentsByStatus } from '../../store/intents';
import { createTenant, deposit } from '../../store/ledger';
import { settledCount, waitUntilSettled } from '../../test/harness/wait-until-settled';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import type { LocalWorld } from '../../test/harness/stack/local-world';
import {
  budgetLines,
  pacedSends,
  reclaimedPermits,
  stopSummary,
  type BudgetLine,
} from '../../test/harness/stack/worker-process';
import { cellProfiler } from './intent-profile';
import { processUsage } from '../../test/harness/process-usage';
import type { RecordedCall } from '../../test/harness/stack/call-log';
import type { ProviderModelProcess } from '../../test/harness/stack/provider-model-process';
import { midRun, percentile, steadyRate, steadyUnitsRate, usedAfter, usedMidRun } from './rates';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import { depositAsset, registerToken } from '../../service/assets';
import { deployTestToken } from '../../test/harness/stack/test-tokens';
import { WebhookReceiver } from '../../test/harness/stack/webhook-receiver';
import { registerEndpoint } from '../../service/webhooks';
import { secretBox } from '../../webhooks/secret-box';
import { weightOf } from '../../throttle/rpc-weights';
import { maxMarginMs, minMarginMs } from '../../throttle/window-state';
import { packingBound } from './packing-bound';

import type { BenchStack } from './bench-stack';
import { admitForArm, onTemporal, quotaModeOf, sharesQuotaInRedis, startArmProcess } from './arms';
import {
  benchToken,
  benchWebhookKey,
  burstOf,
  poolWidth,
  unmetered,
  type Cell,
  type Provider,
  type Result,
  type Server,
} from './cell';

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
    QUOTA_MODE: quotaModeOf(cell.arm),
    WEBHOOK_SECRETS_KEY: benchWebhookKey.toString('base64'),
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    // Several Bottleneck processes share one quota through Redis; one needs none.
    REDIS_URL: sharesQuotaInRedis(cell.arm, cell.processes) ? world.redis!.url : '',
  });
}

/** What the bench stack built or started once for every cell. */
type BuiltOnce = Pick<BenchStack, 'bundlePath' | 'otlpEndpoint' | 'compiledEntriesDir'>;

export async function measure(
  world: LocalWorld,
  /** The provider: every call the workers make goes through it, and it keeps the quota. */
  model: ProviderModelProcess,
  server: Server,
  cell: Cell,
  index: number,
  { bundlePath, otlpEndpoint, compiledEntriesDir }: BuiltOnce,
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
  await model.takeLog(); // an earlier cell's calls
  const realLimit = cell.quota === undefined ? undefined : cell.quota / cell.limitFactor;
  await model.enforceQuota(
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
  const env = {
    ...workerEnv(world, cell, server, taskQueue, bundlePath, provider),
    RPC_URLS: model.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: cell.traces ? otlpEndpoint! : '',
  };
  const profiler =
    profileDir !== undefined && onTemporal(cell.arm)
      ? cellProfiler(join(profileDir, `cell-${index + 1}`), server.metricsUrl)
      : undefined;
  const processes = await Promise.all(
    Array.from({ length: cell.processes }, (_, shard) =>
      startArmProcess(
        cell.arm,
        env,
        { tenantId, intents: cell.intents, shard, processes: cell.processes },
        {
          ...(profiler && { nodeFlags: profiler.nodeFlags }),
          ...(cell.workers === 'compiled' && { compiledDir: compiledEntriesDir }),
        },
      ),
    ),
  );
  await profiler?.begin();
  // From here on: what the work costs, not what starting the processes did.
  const workersBefore = processes.map((p) => processUsage(p.child.pid!).cpuMs);
  const serverBefore = server.cpuMs();
  const anvilBefore = processUsage(world.anvil.pid).cpuMs;
  const benchBefore = process.cpuUsage();
  const loadAverage = loadavg()[0]!;
  console.log(`    load average before the cell: ${loadAverage.toFixed(2)}`);
  const started = Date.now();

  const deps = { database: world.database, client, taskQueue };
  let submitted = 0;
  const admitNext = () => {
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
    return admitForArm(cell.arm, deps, request);
  };
  // Each start begins on a turn of its own: 50 at once hold this loop (an in-process arm's
  // workers' too) 100–230 ms.
  const submit = async (count: number) => {
    const admitted: Promise<unknown>[] = [];
    for (let i = 0; i < count; i++) {
      await yieldToLoop();
      admitted.push(admitNext());
    }
    await Promise.all(admitted);
  };
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
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const notConfirmed = rows.filter((row) => row.status !== 'confirmed');
  if (notConfirmed.length > 0) {
    console.log(`    ${notConfirmed.length} not confirmed: ${notConfirmed[0]!.status}`);
  }
  const finished = rows.map((row) => new Date(row.updated_at).getTime()).sort((a, b) => a - b);
  const latencyOf = (row: { created_at: string | Date; updated_at: string | Date }) =>
    new Date(row.updated_at).getTime() - new Date(row.created_at).getTime();
  const latencies = rows.map(latencyOf).sort((a, b) => a - b);
  const proxy = await model.takeLog();
  const counts = proxy.countsByMethod();
  const rpcPerIntent = Object.fromEntries(
    Object.entries(counts).map(([method, n]) => [method, n / intents]),
  );
  const unitsOf = (method: string) => weightOf(weights, method);
  const rpcLine = rpcLineOf(
    processes.map((p) => budgetLines(p.output())),
    cell.model === 'all' ? cell.quota : undefined,
  );
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
  // The calls the quota is counted in: the sends alone in the sends model, else every call by
  // its units; its use is measured over the run's middle stretch (midRun).
  const [counted, countedUnitsOf] =
    cell.model === 'sends'
      ? [proxy.callsOf('eth_sendRawTransaction'), () => 1]
      : [proxy.calls, unitsOf];
  const stretch = midRun(counted);
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
      counted,
      countedUnitsOf,
      { from: started + 30_000 - proxy.wallTimeOf(0), to: submissionsEnd - proxy.wallTimeOf(0) },
      realLimit,
    ),
    usedMidRun: usedMidRun(stretch, countedUnitsOf, cell.quota),
    refusedByMethod: proxy.quotaRefusalsByMethod(),
    rpcPerIntent,
    confirmP50Blocks: cell.blockTimeSeconds > 0 ? percentile(confirmBlocks, 0.5) : undefined,
    retriesPerIntent: stepRetries / intents,
    permitsReclaimed: processes.reduce((sum, p) => sum + reclaimedPermits(p.output()), 0),
    packingBound: packingBoundOf(cell, stretch.calls, unitsOf, rpcLine.marginMeanMs),
    rpcLine,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: latencies.at(-1) ?? 0,
    loadAverage,
    ...(onTemporal(cell.arm) &&
      percentile(latencies, 0.99) > 3 * percentile(latencies, 0.5) && {
        slowest: await Promise.all(
          [...rows]
            .sort((a, b) => latencyOf(b) - latencyOf(a))
            .slice(0, 5)
            .map((row) => slowIntent(client, row.id)),
        ),
      }),
    ...(onTemporal(cell.arm)
      ? await historyShape(
          client,
          rows.map((row) => row.id),
        )
      : {
          historyEventsPerIntent: undefined,
          workflowTasksPerIntent: undefined,
          historyEventsByType: undefined,
        }),
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
export async function deployBenchToken(world: LocalWorld): Promise<void> {
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

/** Workflows whose histories are read: the throttled middle of a run as well as its start. */
const historiesSampled = 20;

/**
 * Mean history events and workflow tasks (completed) of 20 of the cell's workflows spread evenly
 * over `ids` (in the order they were submitted: the first twenty alone are the ones a quota holds
 * back least), and their events by type (what an extra task was for: a timer, a permit's marker).
 */
async function historyShape(
  client: Client,
  ids: string[],
): Promise<
  Pick<Result, 'historyEventsPerIntent' | 'workflowTasksPerIntent' | 'historyEventsByType'>
> {
  const sampled = Math.min(historiesSampled, ids.length);
  const spread = Array.from(
    { length: sampled },
    (_, index) => ids[Math.floor(((index + 0.5) * ids.length) / sampled)]!,
  );
  const histories = await Promise.all(
    spread.map(
      async (id) =>
        (await client.workflow.getHandle(paymentIntentWorkflowId(id)).fetchHistory()).events ?? [],
    ),
  );
  const workflows = Math.max(1, histories.length);
  const mean = (count: (events: (typeof histories)[number]) => number) =>
    histories.reduce((sum, events) => sum + count(events), 0) / workflows;
  return {
    historyEventsPerIntent: mean((events) => events.length),
    workflowTasksPerIntent: mean(
      (events) => events.filter((event) => event.workflowTaskCompletedEventAttributes).length,
    ),
    historyEventsByType: eventsByType(histories.flat(), workflows),
  };
}

const EventType = temporal.api.enums.v1.EventType;

/** Events per workflow by type (`TIMER_STARTED`, `MARKER_RECORDED`, …), most first. */
function eventsByType(
  events: readonly { eventType?: number | null }[],
  workflows: number,
): Record<string, number> {
  const counts = new Map<string, number>();
  for (const { eventType } of events) {
    const name = (EventType[eventType ?? 0] ?? `${eventType}`).replace(/^EVENT_TYPE_/, '');
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return Object.fromEntries(
    [...counts].sort((a, b) => b[1] - a[1]).map(([name, count]) => [name, count / workflows]),
  );
}

/**
 * What the mix of calls the use of Q is measured over (`slice`, the run's midRun stretch) allows
 * any limiter keeping a rolling second (packing-bound.ts): that stretch's calls taken as one
 * "intent"; the kept window's margin is clamped as the window clamps it (25–50 ms).
 */
function packingBoundOf(
  cell: Cell,
  slice: RecordedCall[],
  unitsOf: (method: string) => number,
  marginMeanMs: number,
): Result['packingBound'] {
  if (cell.model !== 'all' || cell.quota === undefined || slice.length < 2) return undefined;
  const sendUnits = unitsOf('eth_sendRawTransaction');
  const sends = slice.filter((call) => call.method === 'eth_sendRawTransaction').length;
  const units = slice.reduce((sum, call) => sum + unitsOf(call.method), 0);
  const mix = { sendUnits, sendsPerIntent: sends, otherUnitsPerIntent: units - sendUnits * sends };
  // What the provider counts against: the limit it really has (--limit-factor sets Q above it).
  const limit = cell.quota / cell.limitFactor;
  return {
    rollingSecond: packingBound(limit, 1000, mix),
    keptWindow: packingBound(
      limit,
      1000 + Math.min(maxMarginMs, Math.max(minMarginMs, marginMeanMs)),
      mix,
    ),
  };
}

/**
 * The budgets' stop lines of every process, as one cell's figures. The use of Q while the line
 * held calls and while it did not is one process's alone: processes sharing a window are busy at
 * different times.
 */
function rpcLineOf(lines: BudgetLine[], quota: number | undefined): Result['rpcLine'] {
  const sum = (field: keyof BudgetLine) => lines.reduce((total, line) => total + line[field], 0);
  const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
  const calls = sum('calls');
  const used = (units: number, ms: number) =>
    quota === undefined || lines.length !== 1 || ms <= 0 ? undefined : (units * 1000) / ms / quota;
  return {
    linedShare: share(sum('lined'), calls),
    linedMeanMs: share(sum('linedMs'), sum('lined')),
    marginMeanMs: share(sum('marginMsSum'), calls),
    marginMostMs: Math.max(0, ...lines.map((line) => line.marginMostMs)),
    busyShare: share(sum('busyMs'), sum('spanMs')),
    usedWhileBusy: used(sum('busyUnits'), sum('busyMs')),
    usedWhileIdle: used(sum('units') - sum('busyUnits'), sum('spanMs') - sum('busyMs')),
    lateMeanMs: share(sum('lateMs'), sum('wakes')),
    leftLateShare: share(sum('movedLate'), calls),
  };
}

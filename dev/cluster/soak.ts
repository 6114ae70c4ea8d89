import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatEther, parseEther } from 'viem';
import { createApiClient, ApiError, type RelayerApiClient } from '../../cli/api-client';
import { terminalStatuses } from '../../domain/intent';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { createApiKey } from '../../service/api-keys';
import { setUpTenant } from '../../service/tenants';
import { presetWeights, weightOf, type WeightPreset } from '../../throttle/rpc-weights';
import { ConfigError } from '../../workers/config/load';
import { exitOnError } from '../../workers/exit-on-error';
import { installRuntime } from '../../workers/runtime';
import { writeWorkflowBundles } from '../../workers/workflow-code';
import { invariantViolations } from '../../test/harness/invariants';
import { operatorOwner } from '../../domain/custody';
import { chromium } from 'playwright-core';
import { ensureChromium, offlineChromiumArgs } from '../../test/harness/stack/chromium';
import { ensureTemporalCli } from '../../test/harness/stack/temporal-binaries';
import { workflowsListedInWebUi } from '../../test/harness/stack/web-ui-list';
import { startCluster, type Cluster } from './cluster';
import { composeEnvironment } from './compose-topology';
import { growthOfWorkers, type HeapSnapshotTaken } from './heap-growth';
import { wholeNumber } from './options';
import { faultSchedule, injectFault, type FaultRecord } from './soak-faults';
import { measureIdleCost } from './idle-cost';
import { ProcessSampler } from './soak-sampler';
import { writeSoakReport, type SoakFigures } from './soak-report';
import { SoakTraffic } from './soak-traffic';
import {
  taskQueuesOfVersion,
  temporalCli as temporalCliOf,
  versionOf,
  type TemporalCli,
} from './versioned-upgrade';

const cliPath = (cli: Awaited<ReturnType<typeof ensureTemporalCli>>): string =>
  cli.executable.type === 'existing-path' ? cli.executable.path : 'temporal';

const usage = `npm run soak [-- options]
  --minutes <m>   how long traffic runs (default 30)
  --workers <n>   worker processes (default 3)
  --q <q>         the send quota, sends/s (THROTTLE_PER_SECOND; default 10, as docker-compose.yml)
  --rate <r>      intents/s offered through the API, at most q (default 1.5: what a 2-core
                  machine running the whole topology keeps up with)
  --seed <s>      the traffic's and the faults' schedule (default 1)
  --send-window <s>
                  SEND_WINDOW_MS in seconds: how long the unpayable intent's send is retried before
                  it waits for review (default 300, as docker-compose.yml)
  --out <dir>     where the report goes (default test-output/soak)
  --faults <f>    all (default) or none: steady traffic only, to see memory over time
  --heap-snapshots <m,...>
                  minutes at which each worker writes a V8 heap snapshot into <out>/heap; the
                  report names what grew between a worker's first and last (e.g. 10,60)
  --idle <s>      how long the fleet is watched with nothing to do once every intent ended, to
                  measure what it costs idle (default 60: the longest sweep period; 0: not at all)
  --tls           the Temporal frontend requires mTLS (certificates made at start): every
                  process, the Temporal CLI and the Web UI reach it with a client certificate
Runs docker-compose.yml's topology (npm run cluster) under steady traffic while a rolling restart,
a rolling upgrade by Worker Versioning onto a patched() workflow, a worker SIGKILL, restarts of the Temporal server, the
relayer's PostgreSQL and Redis and an RPC endpoint outage happen on a seeded schedule; then checks
the invariants and writes a report. Exit code 1 when any check fails.`;

const tenantIds = ['acme', 'globex', 'initech'];
const depositEther = '100000';
/** The wallet funded for gas but not for its pinned intent: a lane head that waits for review. */
const poorWalletBalance = parseEther('0.02');
/** Above docker-compose.yml's TOP_UP_TARGET_ETH (2): still unpayable once the wallet is topped up. */
const unpayableAmount = parseEther('5');

function parseOptions() {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '30' },
      workers: { type: 'string', default: '3' },
      q: { type: 'string', default: '10' },
      rate: { type: 'string' },
      seed: { type: 'string', default: '1' },
      'send-window': { type: 'string', default: '300' },
      out: { type: 'string', default: 'test-output/soak' },
      faults: { type: 'string', default: 'all' },
      'heap-snapshots': { type: 'string', default: '' },
      idle: { type: 'string', default: String(idleMs / 1000) },
      tls: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const q = wholeNumber('q', values.q, 1, 1000, usage);
  const rate = values.rate === undefined ? Math.min(1.5, q) : Number(values.rate);
  if (!(rate > 0 && rate <= q)) {
    throw new ConfigError({
      problems: [
        `--rate: must be above 0 and at most --q (${q}) (got "${values.rate}")`,
        '',
        usage,
      ],
      heading: 'invalid command line',
    });
  }
  const faults = (['all', 'none'] as const).find((mode) => mode === values.faults);
  if (!faults) {
    throw new ConfigError({
      problems: [`--faults: must be all or none (got "${values.faults}")`, '', usage],
      heading: 'invalid command line',
    });
  }
  const minutes = wholeNumber('minutes', values.minutes, 1, 24 * 60, usage);
  const heapSnapshotMinutes = values['heap-snapshots']
    ? values['heap-snapshots']
        .split(',')
        .map((minute) => wholeNumber('heap-snapshots', minute.trim(), 1, minutes, usage))
    : [];
  return {
    help: values.help,
    minutes,
    faults,
    heapSnapshotMinutes,
    workers: wholeNumber('workers', values.workers, 1, 16, usage),
    q,
    rate,
    seed: wholeNumber('seed', values.seed, 0, 2 ** 31, usage),
    sendWindowSeconds: wholeNumber('send-window', values['send-window'], 1, 86_400, usage),
    idleMs: wholeNumber('idle', values.idle, 0, 3600, usage) * 1000,
    out: resolve(values.out),
    tls: values.tls,
  };
}

async function main(): Promise<void> {
  const options = parseOptions();
  if (options.help) return console.log(usage);
  installRuntime('WARN');
  const started = Date.now();
  const clock = () => `${((Date.now() - started) / 60_000).toFixed(1).padStart(5)} min`;
  const step = (message: string) => console.log(`[${clock()}] ${message}`);
  mkdirSync(options.out, { recursive: true });
  const heapDir = join(options.out, 'heap');
  if (options.heapSnapshotMinutes.length > 0) {
    rmSync(heapDir, { recursive: true, force: true });
    mkdirSync(heapDir);
  }
  const temporalCli = await ensureTemporalCli(step);

  const cluster = await startCluster({
    workers: options.workers,
    wallets: 5,
    tuning: {
      THROTTLE_PER_SECOND: String(options.q),
      THROTTLE_BURST: String(options.q),
      SEND_WINDOW_MS: String(options.sendWindowSeconds * 1000),
    },
    tls: options.tls,
    ...(options.heapSnapshotMinutes.length > 0 && {
      workerNodeOptions: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${JSON.stringify(heapDir)}`,
    }),
    progress: step,
  });
  const interrupted = (code: number) => () => {
    step('interrupted: stopping the cluster');
    void cluster.stop().finally(() => process.exit(code));
  };
  process.once('SIGINT', interrupted(130));
  process.once('SIGTERM', interrupted(143));
  try {
    const figures = await soak(cluster, options, step, temporalCli);
    if (options.heapSnapshotMinutes.length > 0) {
      step('reading the heap snapshots: what grew in each worker');
      figures.heapGrowth = await growthOfWorkers(heapDir, figures.heapSnapshots);
    }
    const { failed } = await writeSoakReport(figures, options.out);
    step(`report: ${join(options.out, 'soak.md')} and soak.png`);
    process.exitCode = failed ? 1 : 0;
  } finally {
    step('stopping the cluster');
    await cluster.stop();
  }
}

async function soak(
  cluster: Cluster,
  options: ReturnType<typeof parseOptions>,
  step: (message: string) => void,
  temporalCli: Awaited<ReturnType<typeof ensureTemporalCli>>,
): Promise<SoakFigures> {
  const { world } = cluster;
  const chainId = world.anvil.chainId;
  const durationMs = options.minutes * 60_000;
  const environment = composeEnvironment('worker-1');
  // The provider counts what the relayer's budget counts: the compose file's weights.
  const units = presetWeights(environment.RPC_WEIGHTS as WeightPreset);
  const providerLimit = Number(environment.RPC_UNITS_PER_SECOND);
  for (const proxy of cluster.proxies) {
    proxy.calls.splice(0);
    proxy.enforceQuota({
      perSecond: providerLimit,
      burst: Number(environment.RPC_BURST_UNITS),
      answer: 'http-429',
      weights: units.byMethod,
      otherMethods: units.otherMethods,
    });
  }

  const now = new Date();
  const tenantKeys = new Map<string, string>();
  const deposits: Record<string, bigint> = {};
  for (const id of tenantIds) {
    await setUpTenant(
      world.database,
      {
        id,
        name: id,
        deposit: { chainId: world.anvil.chainId, wei: parseEther(depositEther) },
        maxInFlight: 200,
      },
      now,
    );
    deposits[id] = parseEther(depositEther);
    const { apiKey } = await createApiKey(
      world.database,
      { role: 'tenant', tenantId: id, label: 'soak' },
      now,
    );
    tenantKeys.set(id, apiKey);
  }
  const nextVersion = join(options.out, 'next-version.js');
  // The cluster's workers trace: they load its traced twin (see startCluster); the build id is
  // the untraced bundle's digest.
  await writeWorkflowBundles(nextVersion, require.resolve('./next-version/workflows'));
  const temporal = temporalCliOf(cliPath(temporalCli), cluster);

  const poorWallet = world.wallets[4]!;
  await world.testClient.setBalance({ address: poorWallet, value: poorWalletBalance });
  const operator = createApiClient(cluster.apiUrl, cluster.operatorKey);
  const { body: unpayable } = await createApiClient(cluster.apiUrl, tenantKeys.get('acme')).submit(
    // More than a top-up brings the wallet (TOP_UP_TARGET_ETH): the treasury cannot unstick it.
    { chainId, from: poorWallet, to: world.wallets[0]!, amount: unpayableAmount.toString() },
    'soak-unpayable',
  );
  step(
    `an intent its wallet cannot pay (${unpayable.id}, ${formatEther(unpayableAmount)} ETH from a wallet holding ${formatEther(poorWalletBalance)}, topped up to less): it waits for review`,
  );

  // The soak's clock starts with its traffic: faults, minutes and samples count from here.
  const began = Date.now();
  const elapsed = () => Date.now() - began;
  const sampler = new ProcessSampler(() => cluster.processes(), began);
  sampler.start(10_000);
  const traffic = new SoakTraffic({
    apiUrl: cluster.apiUrl,
    chainId,
    tenantKeys,
    ratePerSecond: options.rate,
    seed: options.seed,
  });
  traffic.start();
  step(
    `traffic: ${options.rate} intents/s for ${options.minutes} min over ${tenantIds.length} tenants, Q ${options.q} sends/s, ${options.workers} workers`,
  );

  const review = watchReview(cluster, operator, unpayable.id, temporalCli, step, options.out).catch(
    (error: Error): ReviewOutcome => ({ query: '', listed: [], problem: error.message }),
  );
  const heapSnapshots: HeapSnapshotTaken[] = [];
  const snapshotWorkers = (minute: number) => {
    cluster.workers.forEach((worker, index) => {
      if (!worker) return;
      // Node writes it into --diagnostic-dir; the process pauses for a few seconds meanwhile.
      worker.signal('SIGUSR2');
      heapSnapshots.push({ minute, name: `worker ${index + 1}`, pid: worker.child.pid! });
    });
    step(`heap snapshots asked of every worker (minute ${minute})`);
  };
  // One due at the very end is taken below, before the traffic stops.
  const snapshotTimers = options.heapSnapshotMinutes
    .filter((minute) => minute < options.minutes)
    .map((minute) => setTimeout(() => snapshotWorkers(minute), minute * 60_000));
  const faults: FaultRecord[] = [];
  const schedule = options.faults === 'all' ? faultSchedule(options.seed, durationMs) : [];
  const progress = setInterval(() => {
    void endedCount(cluster).then((ended) =>
      step(
        `${traffic.accepted.length + traffic.tally.batchItems} accepted · ${ended} ended · ` +
          `${traffic.tally.outageRetries} outage retries · ${faults.length}/${schedule.length} faults`,
      ),
    );
  }, 60_000);
  for (const fault of schedule) {
    const wait = fault.atMs - elapsed();
    if (wait > 0) await sleep(wait);
    step(`fault: ${fault.kind}`);
    const startedAtMs = elapsed();
    const record = await injectFault(
      fault.kind,
      cluster,
      { code: nextVersion, temporal },
      options.seed,
    );
    faults.push({ kind: fault.kind, startedAtMs, tookMs: elapsed() - startedAtMs, ...record });
    step(`  ${record.detail} (${((elapsed() - startedAtMs) / 1000).toFixed(1)} s)`);
  }
  const rest = durationMs - elapsed();
  if (rest > 0) await sleep(rest);
  for (const timer of snapshotTimers) clearTimeout(timer);
  if (options.heapSnapshotMinutes.includes(options.minutes)) snapshotWorkers(options.minutes);
  step('traffic stops; waiting for every accepted intent to end');
  await traffic.stop();
  const reviewOutcome = await review;
  const stillOpen = await waitUntilEnded(cluster, step);
  const accepted = await acceptedIntentIds(cluster, traffic, unpayable.id);
  clearInterval(progress);
  await sampler.stop();
  const idle =
    options.idleMs > 0 ? await idleCost(cluster, units, options.idleMs, step) : undefined;

  // One scan of the chain for both endpoints. A check that cannot run fails, named, in the
  // report: the hour of samples is not lost with it.
  const violations = await invariantViolations({
    world,
    deposits,
    accepted: [...accepted],
    wallets: [...world.wallets, cluster.treasury],
    proxy: cluster.proxies,
  }).catch((error: Error) => [
    `the invariants could not be checked: ${error.message.split('\n')[0]}`,
  ]);
  // The tenants' intents; the treasury's top-ups (the poor wallet's, at least) apart.
  const rows = await world.database.kysely
    .selectFrom('intents')
    .select(['id', 'status', 'created_at', 'updated_at'])
    .where('tenant_id', '!=', operatorOwner)
    .execute();
  const topUps = await world.database.kysely
    .selectFrom('intents')
    .select('status')
    .where('tenant_id', '=', operatorOwner)
    .execute();
  const release = releaseAtEnd(cluster, temporal);
  const histories = await sampleHistories(
    cluster,
    rows.filter((row) => row.status === 'confirmed').map((row) => row.id),
  );
  return {
    options: { ...options, providerLimit, endpoints: cluster.proxies.length },
    faults,
    traffic: traffic.tally,
    began,
    rows: rows.map((row) => ({
      id: row.id,
      status: row.status,
      createdAt: new Date(row.created_at).getTime(),
      updatedAt: new Date(row.updated_at).getTime(),
    })),
    acceptedCount: accepted.size,
    topUps: topUps.map((row) => row.status),
    stillOpen,
    violations,
    refusedByProvider: cluster.proxies.reduce((sum, proxy) => sum + proxy.quotaRefusals(), 0),
    calls: cluster.proxies.flatMap((proxy) =>
      proxy.calls.map((call) => ({
        atMs: proxy.wallTimeOf(call.startedAt) - began,
        method: call.method,
        units: weightOf(units, call.method),
      })),
    ),
    samples: sampler.samples,
    idle,
    heapSnapshots,
    histories,
    review: reviewOutcome,
    crashes: cluster.crashes,
    release,
  };
}

/** The build the workers run at the end, and the task queues its version holds. */
function releaseAtEnd(cluster: Cluster, temporal: TemporalCli): SoakFigures['release'] {
  const worker = cluster.workers.find((process) => process !== undefined);
  if (!worker) return { buildId: '?', taskQueues: [], problem: 'no worker running' };
  try {
    const version = versionOf(worker);
    return { buildId: version.buildId, taskQueues: taskQueuesOfVersion(temporal, version).names };
  } catch (error) {
    return { buildId: '?', taskQueues: [], problem: (error as Error).message };
  }
}

/**
 * How long the fleet is watched with nothing to do, from `quietMs` after every intent ended: the
 * longest sweep period (the orphan and top-up Schedules, a minute; finality, 30 s), so each
 * sweep runs in it as often as in any minute. Which worker runs a sweep is the server's pick: a
 * shorter window measured which worker happened to draw them (one at 3.6% beside one at 1.0%).
 */
const idleMs = 60_000;
const quietMs = 15_000;

/** What the fleet costs with nothing to do, watched for `windowMs` from `quietMs` on. */
async function idleCost(
  cluster: Cluster,
  units: Parameters<typeof weightOf>[0],
  windowMs: number,
  step: (message: string) => void,
) {
  // Work that outlives the intents ends first: the finality sweep's look at each confirmed one
  // once its block is final, then webhook deliveries, evictions, the review's lane.
  await waitUntilFinal(cluster, step);
  await sleep(quietMs);
  step(`idle: ${windowMs / 1000} s with no intents, measuring what the fleet costs`);
  return measureIdleCost(
    () => cluster.processes(),
    () => cluster.proxies.map((proxy) => proxy.calls),
    (method) => weightOf(units, method),
    (from, to) => finalizedBetween(cluster, from, to),
    windowMs,
  );
}

/** Every intent the soak made the relayer accept: its own, each batch's items, the unpayable one. */
async function acceptedIntentIds(cluster: Cluster, traffic: SoakTraffic, unpayable: string) {
  const ids = new Set([unpayable, ...traffic.accepted.map((intent) => intent.id)]);
  if (traffic.batchIds.length > 0) {
    const items = await cluster.world.database.kysely
      .selectFrom('batch_items')
      .select('intent_id as id')
      .where('batch_id', 'in', traffic.batchIds)
      .where('intent_id', 'is not', null)
      .execute();
    for (const item of items) ids.add(item.id!);
  }
  return ids;
}

const intentCount = (cluster: Cluster) =>
  cluster.world.database.kysely
    .selectFrom('intents')
    .select((eb) => eb.fn.countAll<number>().as('count'));

/** How many intents the query's conditions keep. */
async function countIntents(
  cluster: Cluster,
  where: (query: ReturnType<typeof intentCount>) => ReturnType<typeof intentCount>,
): Promise<number> {
  return Number((await where(intentCount(cluster)).executeTakeFirstOrThrow()).count);
}

/** Intents that have ended. */
const endedCount = (cluster: Cluster) =>
  countIntents(cluster, (query) => query.where('status', 'in', [...terminalStatuses]));

/** Waits (3 min at most) until every confirmed intent is marked final. */
const waitUntilFinal = (cluster: Cluster, step: (m: string) => void): Promise<number> =>
  waitUntilNone(
    () =>
      countIntents(cluster, (query) =>
        query.where('status', '=', 'confirmed').where('finalized_at', 'is', null),
      ),
    { minutes: 3, everyMs: 2000 },
    (left) =>
      step(`${left} confirmed intents not yet final after 3 min: the idle window has their looks`),
  );

/** Intents marked final between `from` and `to`. */
const finalizedBetween = (cluster: Cluster, from: Date, to: Date) =>
  countIntents(cluster, (query) =>
    query
      .where('finalized_at', '>=', from.toISOString())
      .where('finalized_at', '<=', to.toISOString()),
  );

/** Intents still open, and batches still running (their items not all started). */
async function openWork(cluster: Cluster): Promise<number> {
  const intents = await countIntents(cluster, (query) =>
    query.where('status', 'not in', [...terminalStatuses]),
  );
  const batches = await cluster.world.database.kysely
    .selectFrom('batches')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('status', '=', 'running')
    .executeTakeFirstOrThrow();
  return intents + Number(batches.count);
}

/** Waits (15 min at most) until nothing is open; resolves with how much still is. */
const waitUntilEnded = (cluster: Cluster, step: (m: string) => void): Promise<number> =>
  waitUntilNone(
    () => openWork(cluster),
    { minutes: 15, everyMs: 5000 },
    (left) => step(`${left} intents and batches still open after 15 min: the report says so`),
  );

/** Asks `count` every `everyMs` until it is 0 or `minutes` have passed; resolves with the last. */
async function waitUntilNone(
  count: () => Promise<number>,
  { minutes, everyMs }: { minutes: number; everyMs: number },
  onTimeout: (left: number) => void,
): Promise<number> {
  const deadline = Date.now() + minutes * 60_000;
  for (;;) {
    const left = await count();
    if (left === 0) return 0;
    if (Date.now() > deadline) {
      onTimeout(left);
      return left;
    }
    await sleep(everyMs);
  }
}

/** What the review of the unpayable intent showed, through visibility and the operator's cancel. */
export interface ReviewOutcome {
  /** `temporal workflow list` with the needs_review filter, against PostgreSQL visibility. */
  query: string;
  listed: string[];
  /** Whether the Web UI's workflow list under the same filter showed it (in Chromium). */
  listedInWebUi?: boolean;
  inReviewAfterMs?: number;
  endedAs?: string;
  problem?: string;
}

async function watchReview(
  cluster: Cluster,
  operator: RelayerApiClient,
  intentId: string,
  temporalCli: Awaited<ReturnType<typeof ensureTemporalCli>>,
  step: (message: string) => void,
  out: string,
): Promise<ReviewOutcome> {
  const query = 'IntentStatus = "needs_review" AND TenantId = "acme"';
  const outcome: ReviewOutcome = { query, listed: [] };
  const since = Date.now();
  const deadline = since + 10 * 60_000;
  for (;;) {
    const intent = await operator.get(intentId).catch(() => undefined);
    if (intent?.status === 'needs_review') break;
    if (Date.now() > deadline)
      return { ...outcome, problem: `not in review after 10 min (${intent?.status})` };
    await sleep(5000);
  }
  outcome.inReviewAfterMs = Date.now() - since;
  const cli = cliPath(temporalCli);
  // Visibility is eventually consistent: the status the workflow upserted shows within seconds.
  for (let attempt = 0; attempt < 20 && outcome.listed.length === 0; attempt++) {
    const list = spawnSync(
      cli,
      [
        'workflow',
        'list',
        '--address',
        cluster.temporal.address,
        '--query',
        query,
        '--output',
        'json',
      ],
      // The CLI reads the same TEMPORAL_* variables as the relayer (with --tls, the certificates).
      { encoding: 'utf8', env: { ...process.env, ...cluster.temporalEnv } },
    );
    const lines = list.stdout.trim();
    const parsed = lines
      ? (JSON.parse(lines.startsWith('[') ? lines : `[${lines.split('\n').join(',')}]`) as {
          execution: { workflowId: string };
        }[])
      : [];
    outcome.listed = parsed.map((entry) => entry.execution.workflowId);
    if (outcome.listed.length === 0) await sleep(1000);
  }
  step(
    `in review after ${(outcome.inReviewAfterMs / 60_000).toFixed(1)} min; temporal workflow list --query '${query}': ${outcome.listed.join(', ') || 'nothing'}`,
  );
  // What an operator opens: the Web UI's list under the same filter.
  const screenshot = join(out, 'web-ui-needs-review.png');
  outcome.listedInWebUi = await workflowsInBrowser(
    cluster.ui.url,
    query,
    outcome.listed,
    screenshot,
  )
    .then(() => true)
    .catch((error: Error) => {
      step(`the Web UI did not list it: ${error.message.split('\n')[0]}`);
      return false;
    });
  if (outcome.listedInWebUi) step(`the Web UI (${cluster.ui.url}) lists it too: ${screenshot}`);
  // The row says needs_review a moment before the workflow waits for the decision (409 until then).
  for (let attempt = 0; ; attempt++) {
    try {
      await operator.review(intentId, 'cancel', {
        note: 'soak: the operator takes the nonce back',
      });
      break;
    } catch (error) {
      if (!(error instanceof ApiError && error.body.code === 'not_in_review') || attempt >= 30) {
        throw error;
      }
      await sleep(1000);
    }
  }
  for (const until = Date.now() + 5 * 60_000; Date.now() < until;) {
    const intent = await operator.get(intentId).catch(() => undefined);
    if (
      intent &&
      terminalStatuses.has(intent.status as never) &&
      intent.status !== 'needs_review'
    ) {
      outcome.endedAs = intent.status;
      break;
    }
    await sleep(2000);
  }
  step(
    `the operator cancelled it on-chain: it ended ${outcome.endedAs ?? 'not at all within 5 min'}`,
  );
  if (!outcome.listed.includes(paymentIntentWorkflowId(intentId))) {
    outcome.problem = 'the needs_review filter did not list it';
  } else if (!outcome.listedInWebUi) {
    outcome.problem = 'the Web UI did not list it under the needs_review filter';
  }
  return outcome;
}

/** The Web UI's list under `query` in a headless, offline Chromium, once it shows `expected`. */
async function workflowsInBrowser(
  uiUrl: string,
  query: string,
  expected: string[],
  screenshotPath: string,
): Promise<void> {
  const browser = await chromium.launch({
    executablePath: (await ensureChromium()).path,
    args: offlineChromiumArgs,
    headless: true,
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await workflowsListedInWebUi(page, uiUrl, query, expected, screenshotPath);
  } finally {
    await browser.close();
  }
}

/** Events and failed workflow tasks in the histories of up to 50 confirmed intents. */
async function sampleHistories(cluster: Cluster, confirmed: string[]) {
  const connection = await Connection.connect({
    address: cluster.temporal.address,
    tls: cluster.temporal.tls,
  });
  const client = new Client({ connection });
  const step = Math.max(1, Math.floor(confirmed.length / 50));
  const sampled = confirmed.filter((_, index) => index % step === 0).slice(0, 50);
  let events = 0;
  let failedTasks = 0;
  for (const id of sampled) {
    const history = await client.workflow.getHandle(paymentIntentWorkflowId(id)).fetchHistory();
    events += history.events?.length ?? 0;
    failedTasks += (history.events ?? []).filter(
      (event) => event.workflowTaskFailedEventAttributes,
    ).length;
  }
  await connection.close();
  return {
    sampled: sampled.length,
    eventsPerIntent: sampled.length ? events / sampled.length : 0,
    failedTasks,
  };
}

void main().catch(exitOnError);

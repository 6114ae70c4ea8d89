import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { createApiKey } from '../../service/api-keys';
import { writeWorkflowBundles } from '../../workers/workflow-code';
import { startAnvil, type Anvil } from '../../test/harness/stack/anvil';
import { freePort } from '../../test/harness/stack/free-port';
import { parseEther } from 'viem';
import { ensureKmsSigningKey, fundOnDevelopmentChain } from '../../workers/provision-kms-treasury';
import { startLocalKms } from '../../test/harness/stack/local-kms';
import { startLocalWorld, type LocalWorld } from '../../test/harness/stack/local-world';
import { startPostgres, type PostgresServer } from '../../test/harness/stack/postgres';
import { RpcProxy } from '../../test/harness/stack/rpc-proxy';
import { startTemporalServer, type TemporalServer } from '../../test/harness/stack/temporal-server';
import { startJaeger, type Jaeger } from '../../test/harness/stack/jaeger';
import { startTemporalUi, type TemporalUi } from '../../test/harness/stack/temporal-ui';
import type { Progress } from '../../test/harness/stack/toolchain';
import { spawnApi, spawnWorker, type WorkerProcess } from '../../test/harness/stack/worker-process';
import { clusterEnvironment, composeEnvironment } from './compose-topology';
import { makeTestCertificates } from '../../test/harness/stack/test-certificates';

export interface ClusterOptions {
  /** Worker processes serving the task queue. */
  workers: number;
  /** Hot wallets the workers sign for (anvil's development accounts). */
  wallets: number;
  /** Settings on top of docker-compose.yml's, for every relayer process (a soak's quota). */
  tuning?: Record<string, string>;
  /** NODE_OPTIONS of the worker processes (the soak's heap snapshots on a signal). */
  workerNodeOptions?: string;
  /** The Temporal frontend requires mTLS: certificates made at start, every process through it. */
  tls?: boolean;
  progress: Progress;
}

/** A relayer process of the cluster, as the soak samples and restarts it. */
export interface ClusterProcess {
  name: string;
  pid(): number;
  /** A relayer process's Prometheus page (its heap, among the rest). */
  metricsUrl?: string;
  /** A relayer process's Temporal SDK Prometheus page (the tasks it ran). */
  sdkMetricsUrl?: string;
}

export interface ProcessCrash {
  name: string;
  exit: number | string;
  at: Date;
  /** The end of its output. */
  output: string;
}

export interface Cluster {
  temporal: TemporalServer;
  /**
   * How a client reaches Temporal, as TEMPORAL_* variables: what every relayer process and the
   * Temporal CLI read (with --tls, the certificate files too).
   */
  temporalEnv: Record<string, string>;
  /** The Web UI (temporal-ui in docker-compose.yml) on the server's frontend. */
  ui: TemporalUi;
  /** Where every process's traces go, and their UI (jaeger in docker-compose.yml). */
  jaeger: Jaeger;
  temporalPostgres: PostgresServer;
  relayerPostgres: PostgresServer;
  /** The chain (anvil with a block time), the relayer's database, Redis and the first proxy. */
  world: LocalWorld;
  /** The two RPC endpoints the workers use, in front of one node. */
  proxies: [RpcProxy, RpcProxy];
  /**
   * The second chain of docker-compose.yml's chains file: slower blocks, no EIP-1559; the
   * workers serve it beside the first (its wallets registered, its blocks watched).
   */
  legacyChain: Anvil;
  apiUrl: string;
  operatorKey: string;
  /** The chains' treasury: a key in a local KMS, made and funded as compose's treasury-key does. */
  treasury: `0x${string}`;
  /** Worker slots: a running process, or undefined between a stop and a start. */
  workers: (WorkerProcess | undefined)[];
  /** Processes that exited without being asked to (each started again, as compose would). */
  crashes: ProcessCrash[];
  /**
   * Starts worker `index` (its slot must be empty), on the workflow bundle at `bundlePath` if
   * given, which every worker started after it runs too (a rollout).
   */
  startWorker(index: number, bundlePath?: string): Promise<WorkerProcess>;
  /** Signals worker `index` and resolves once it is gone, with its exit code or signal. */
  stopWorker(index: number, signal: 'SIGTERM' | 'SIGKILL'): Promise<number | string>;
  /** Every process of the cluster by name, for sampling (workers as they are now). */
  processes(): ClusterProcess[];
  stop(): Promise<void>;
}

/** A chain of deploy/chains.yaml, as far as the cluster rewrites it. */
interface ComposeChain {
  rpc: (string | { url: string })[];
}

/** An endpoint of a chains file moved to `url`, its quota kept. */
const movedTo = (endpoint: string | { url: string }, url: string) =>
  typeof endpoint === 'string' ? url : { ...endpoint, url };

/** What the cluster keeps of each process's output: its last lines, for a failure's report. */
const outputTail = 200_000;

/** docker-compose.yml's stop_grace_period: SIGTERM, then SIGKILL this much later. */
const stopGraceMs = 30_000;

/** Anvil's block time in the cluster: a chain that mines on its own clock, as real ones do. */
const blockTimeSeconds = 1;
/**
 * The first chain's finalized block 8 blocks behind its head (anvil's default, as in the compose
 * file: 64), so the finality sweep has looked at every confirmed intent seconds after the
 * traffic, not a minute, and the soak's idle window measures a fleet with nothing left to do.
 * The second chain's finality is a depth in the chains file (10 blocks), whatever anvil says.
 */
const slotsInAnEpoch = 4;

/**
 * docker-compose.yml's topology without containers: the Temporal server on PostgreSQL (SQL
 * visibility with the relayer's search attributes), the relayer's own PostgreSQL, Redis, anvil
 * mining every second behind two RPC endpoints, `workers` worker processes and the API process,
 * each with the compose file's settings but for where things are (`placeSettings`). Whatever
 * started is stopped again if a later part fails.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { progress } = options;
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    progress('starting PostgreSQL for Temporal and for the relayer');
    const [temporalPostgres, relayerPostgres] = await Promise.all([
      startPostgres(),
      startPostgres(),
    ]);
    stops.push(
      () => temporalPostgres.stop(),
      () => relayerPostgres.stop(),
    );
    const certificates = options.tls ? makeTestCertificates() : undefined;
    if (certificates) stops.push(async () => certificates.remove());
    progress(
      `starting the Temporal server on PostgreSQL (schemas, namespace, search attributes)${certificates ? ', mTLS on its frontend' : ''}`,
    );
    const temporal = await startTemporalServer({
      postgresUrl: temporalPostgres.url,
      progress,
      ...(certificates && { tls: certificates }),
    });
    stops.push(() => temporal.stop());
    const temporalEnv = {
      TEMPORAL_ADDRESS: temporal.address,
      ...(certificates && {
        TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.client.cert,
        TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.client.key,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.ca,
        TEMPORAL_TLS_SERVER_NAME: 'localhost',
      }),
    };
    progress('starting the Temporal Web UI against it');
    const ui = await startTemporalUi({
      temporalAddress: temporal.address,
      progress,
      ...(certificates && { tls: certificates }),
    });
    stops.push(() => ui.stop());
    progress('starting Jaeger for the traces');
    const jaeger = await startJaeger(progress);
    stops.push(() => jaeger.stop());
    progress('starting anvil (a block a second), Redis, two RPC endpoints, the relayer database');
    const world = await startLocalWorld({
      temporalAddress: temporal.address,
      anvil: { blockTimeSeconds, slotsInAnEpoch },
      wallets: options.wallets,
      proxy: true,
      redis: true,
      postgresServerUrl: relayerPostgres.url,
      tenants: {},
    });
    stops.push(() => world.stop());
    const second = await RpcProxy.start(world.anvil.rpcUrl);
    stops.push(() => second.close());
    const proxies: [RpcProxy, RpcProxy] = [world.proxy!, second];
    progress('starting a second chain as the chains file has it (3 s blocks, before EIP-1559)');
    const legacyChain = await startAnvil({
      chainId: 31_338,
      blockTimeSeconds: 3,
      hardfork: 'berlin',
    });
    stops.push(() => legacyChain.stop());

    const dir = mkdtempSync(join(tmpdir(), 'relayer-cluster-'));
    stops.push(async () => rmSync(dir, { recursive: true, force: true }));
    // deploy/chains.yaml with this place's endpoints: the proxies, the second node.
    const chainsFile = join(dir, 'chains.yaml');
    const composeChains = parseYaml(
      readFileSync(resolve(__dirname, '../../deploy/chains.yaml'), 'utf8'),
    ) as { chains: [ComposeChain, ComposeChain] };
    const [home, legacy] = composeChains.chains;
    home.rpc = proxies.map((proxy) => movedTo(home.rpc[0]!, proxy.url));
    legacy.rpc = [movedTo(legacy.rpc[0]!, legacyChain.rpcUrl)];
    writeFileSync(chainsFile, stringifyYaml(composeChains));
    const keysFile = join(dir, 'hot-wallet-keys');
    writeFileSync(keysFile, `${world.walletKeys.join('\n')}\n`, { mode: 0o600 });
    progress("starting a local KMS for the treasury's key, funded on both chains");
    const kms = await startLocalKms();
    stops.push(() => kms.stop());
    const provisioning = composeEnvironment('treasury-key');
    const treasuryAlias = provisioning.TREASURY_KMS_ALIAS!;
    const { address: treasury } = await ensureKmsSigningKey(kms.client, treasuryAlias);
    for (const rpcUrl of [world.anvil.rpcUrl, legacyChain.rpcUrl]) {
      await fundOnDevelopmentChain(rpcUrl, treasury, parseEther(provisioning.TREASURY_FUND_ETH!));
    }
    const bundlePath = join(dir, 'workflow-bundle.js');
    // Every process of the cluster traces (compose sets OTEL_EXPORTER_OTLP_ENDPOINT, a place
    // setting a run cannot tune away): the traced twin is the bundle they load, the untraced
    // one's digest their build id.
    await writeWorkflowBundles(bundlePath);
    const place = {
      ...temporalEnv,
      DATABASE_URL: world.databaseUrl,
      CHAINS_FILE: chainsFile,
      REDIS_URL: world.redis!.url,
      KMS_ENDPOINT: kms.endpoint,
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
      API_HOST: '127.0.0.1',
      WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    };
    const processEnv = async (service: 'worker-1' | 'api', extra: Record<string, string>) =>
      clusterEnvironment(
        service,
        {
          ...place,
          METRICS_PORT: String(await freePort()),
          TEMPORAL_METRICS_PORT: String(await freePort()),
          ...(service === 'worker-1' && {
            HOT_WALLET_KEYS_FILE: keysFile,
            // What the compose workers read from treasury-key's settings file.
            TREASURY_WALLET: treasury,
            WALLET_SIGNERS: `${treasury}=kms:${treasuryAlias}`,
          }),
          ...extra,
        },
        options.tuning,
      );

    const workers: (WorkerProcess | undefined)[] = Array.from({ length: options.workers });
    const metricsUrlsOf = (env: Record<string, string>) => ({
      metricsUrl: `http://127.0.0.1:${env.METRICS_PORT}/metrics`,
      sdkMetricsUrl: `http://127.0.0.1:${env.TEMPORAL_METRICS_PORT}/metrics`,
    });
    const metricsUrls = new WeakMap<WorkerProcess, ReturnType<typeof metricsUrlsOf>>();
    const crashes: ProcessCrash[] = [];
    let stopping = false;
    const asked = new WeakSet<WorkerProcess>();
    // As docker-compose's `restart: unless-stopped`: a process that exits unasked is started
    // again, and its exit is kept for the report.
    const supervise = (name: string, process: WorkerProcess, restart: () => Promise<unknown>) => {
      void process.exited.then((exit) => {
        if (stopping || asked.has(process)) return;
        crashes.push({ name, exit, at: new Date(), output: process.output().slice(-4000) });
        setTimeout(() => void restart().catch(() => undefined), 1000);
      });
    };
    const stopWorker = async (index: number, signal: 'SIGTERM' | 'SIGKILL') => {
      const worker = workers[index];
      if (!worker) throw new Error(`worker ${index + 1} is not running`);
      asked.add(worker);
      worker.signal(signal);
      // A drain that outlasts compose's stop grace period is ended as compose would.
      const kill = setTimeout(() => worker.signal('SIGKILL'), stopGraceMs);
      const exit = await worker.exited;
      clearTimeout(kill);
      workers[index] = undefined;
      return exit;
    };
    let workerCode = bundlePath;
    const startWorker = async (index: number, code?: string) => {
      if (workers[index]) throw new Error(`worker ${index + 1} is running`);
      if (code) workerCode = code;
      const env = await processEnv('worker-1', {});
      const worker = await spawnWorker(
        {
          ...env,
          WORKFLOW_BUNDLE_PATH: workerCode,
          ...(options.workerNodeOptions && {
            NODE_OPTIONS: [process.env.NODE_OPTIONS, options.workerNodeOptions].join(' ').trim(),
          }),
        },
        { outputTail },
      );
      workers[index] = worker;
      metricsUrls.set(worker, metricsUrlsOf(env));
      supervise(`worker ${index + 1}`, worker, async () => {
        workers[index] = undefined;
        await startWorker(index);
      });
      return worker;
    };
    stops.push(async () => {
      stopping = true;
      await Promise.all(
        workers.map((worker, index) => (worker ? stopWorker(index, 'SIGTERM') : undefined)),
      );
    });
    progress(`starting ${options.workers} worker processes and the API process`);
    for (let index = 0; index < options.workers; index++) await startWorker(index);
    const apiPort = await freePort();
    const apiEnv = await processEnv('api', { API_PORT: String(apiPort) });
    let api: WorkerProcess;
    const startApi = async () => {
      api = await spawnApi(apiEnv, { outputTail });
      supervise('api', api, startApi);
    };
    await startApi();
    stops.push(async () => {
      stopping = true;
      asked.add(api);
      api.signal('SIGTERM');
      const kill = setTimeout(() => api.signal('SIGKILL'), stopGraceMs);
      await api.exited;
      clearTimeout(kill);
    });
    const { apiKey: operatorKey } = await createApiKey(
      world.database,
      { role: 'operator', label: 'cluster' },
      new Date(),
    );

    return {
      temporal,
      temporalEnv,
      ui,
      jaeger,
      temporalPostgres,
      relayerPostgres,
      world,
      proxies,
      legacyChain,
      apiUrl: `http://127.0.0.1:${apiPort}`,
      operatorKey,
      treasury,
      workers,
      crashes,
      startWorker,
      stopWorker,
      processes: () => [
        ...workers.flatMap((worker, index) =>
          worker
            ? [
                {
                  name: `worker ${index + 1}`,
                  pid: () => worker.child.pid!,
                  ...metricsUrls.get(worker),
                },
              ]
            : [],
        ),
        { name: 'api', pid: () => api.child.pid!, ...metricsUrlsOf(apiEnv) },
        { name: 'temporal server', pid: () => temporal.pid() },
        { name: 'temporal web ui', pid: () => ui.pid() },
        { name: 'jaeger', pid: () => jaeger.pid() },
        { name: 'postgres (temporal)', pid: () => temporalPostgres.pid() },
        { name: 'postgres (relayer)', pid: () => relayerPostgres.pid() },
        { name: 'redis', pid: () => world.redis!.pid() },
        { name: 'anvil', pid: () => world.anvil.pid },
        { name: 'anvil (legacy chain)', pid: () => legacyChain.pid },
      ],
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { untilSearchAttributesTaken } from './search-attributes-probe';
import { msToTs } from '@temporalio/common/lib/time';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { addSearchAttributes } from '../../../workers/ensure-search-attributes';
import { reapChildrenOnExit, stopProcess } from './children';
import { freeLowPort, freePort } from './free-port';
import { startTemporalFrontend } from './temporal-frontend';
import { fairTaskQueueSettings } from './temporal-servers';
import type { TestCertificates } from './test-certificates';
import { clientTls, frontendTls } from './temporal-server-tls';
import {
  goInstall,
  cacheDir,
  isExecutable,
  buildWithGo,
  runCommand,
  type Progress,
} from './toolchain';

/** The version docker-compose.yml deploys (temporalio/auto-setup); a unit test keeps them equal. */
export const temporalServerVersion = 'v1.29.1';

/** Both binaries are called `server`/`sql` by `go install`: kept under names that say which. */
const serverCache = join(cacheDir, `temporal-server-${temporalServerVersion}`);
const serverBinary = join(serverCache, 'temporal-server');
const sqlToolBinary = join(serverCache, 'temporal-sql-tool');

/**
 * The Temporal server and its schema tool, built from source with Go from the module proxy
 * (`go.temporal.io/server`: its go.mod has no replace directives) once per machine, cached.
 */
export async function ensureTemporalServer(
  progress: Progress,
): Promise<{ server: string; sqlTool: string; source: string }> {
  if (isExecutable(serverBinary) && isExecutable(sqlToolBinary)) {
    return { server: serverBinary, sqlTool: sqlToolBinary, source: 'cache' };
  }
  await buildWithGo(`the Temporal server ${temporalServerVersion}`, async (dir) => {
    const binaries = [
      ['cmd/server', 'server', serverBinary],
      ['cmd/tools/sql', 'sql', sqlToolBinary],
    ] as const;
    for (const [pkg] of binaries) {
      progress(
        `building go.temporal.io/server/${pkg}@${temporalServerVersion} with Go (once; minutes)`,
      );
      await goInstall(`go.temporal.io/server/${pkg}@${temporalServerVersion}`, dir, progress);
    }
    return binaries.map(([, built, cached]) => [join(dir, built), cached]);
  });
  return { server: serverBinary, sqlTool: sqlToolBinary, source: 'built now' };
}

export interface TemporalServer {
  /** host:port of the frontend. */
  address: string;
  /** With mTLS: how a client connects (the client certificate, the CA, the server's name). */
  tls?: TLSConfig;
  namespace: string;
  /** Where its log goes (stdout and stderr). */
  logPath: string;
  pid(): number;
  /** Stops the server (SIGTERM) and starts it again on the same ports and databases. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface TemporalServerOptions {
  /** A PostgreSQL server (postgres://user@host:port/any) to hold its two databases. */
  postgresUrl: string;
  progress: Progress;
  /** The namespace created at first start, with the relayer's search attributes. */
  namespace?: string;
  /**
   * mTLS on the frontend: its certificate the server's of `tls`, clients' certificates checked
   * against its CA (the server's own system worker holds the client certificate).
   */
  tls?: Pick<TestCertificates, 'ca' | 'server' | 'client'>;
}

/**
 * A Temporal server as a cluster runs it: all four services in one process, persistence and SQL
 * visibility on PostgreSQL (schemas set up by temporal-sql-tool from the ones the binary embeds),
 * a namespace with the relayer's search attributes registered, as docker-compose's auto-setup
 * image does.
 */
export async function startTemporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  const { progress } = options;
  const namespace = options.namespace ?? 'default';
  const binaries = await ensureTemporalServer(progress);
  progress(`Temporal server ${temporalServerVersion} from ${binaries.source}`);
  const pg = new URL(options.postgresUrl);
  const databases = { temporal: 'temporal', visibility: 'temporal_visibility' };
  const sql = (...args: string[]) =>
    runCommand(
      binaries.sqlTool,
      [
        '--plugin',
        'postgres12',
        '--endpoint',
        pg.hostname,
        '--port',
        pg.port,
        '--user',
        decodeURIComponent(pg.username),
        '--password',
        decodeURIComponent(pg.password),
        ...args,
      ],
      progress,
    );
  for (const [database, schema] of [
    [databases.temporal, 'postgresql/v12/temporal'],
    [databases.visibility, 'postgresql/v12/visibility'],
  ] as const) {
    await sql('--database', database, 'create-database');
    await sql('--database', database, 'setup-schema', '-v', '0.0');
    await sql('--database', database, 'update-schema', '--schema-name', schema);
  }

  const root = mkdtempSync(join(tmpdir(), 'temporal-server-'));
  const ports = {
    frontend: await freePort(),
    frontendHttp: await freePort(),
    frontendMembership: await freeLowPort(),
    history: await freePort(),
    historyMembership: await freeLowPort(),
    matching: await freePort(),
    matchingMembership: await freeLowPort(),
    worker: await freePort(),
    workerMembership: await freeLowPort(),
  };
  mkdirSync(join(root, 'config'));
  writeFileSync(join(root, 'dynamicconfig.yaml'), stringify(dynamicConfig));
  writeFileSync(
    join(root, 'config', 'development.yaml'),
    stringify({
      ...serverConfig(pg, databases, ports, join(root, 'dynamicconfig.yaml')),
      ...(options.tls && { global: { ...globalConfig, tls: frontendTls(options.tls) } }),
    }),
  );
  const tls = options.tls && clientTls(options.tls);
  const logPath = join(root, 'server.log');
  const address = `127.0.0.1:${ports.frontend}`;
  let child: ChildProcess | undefined;
  reapChildrenOnExit();

  const start = async () => {
    child = await startTemporalFrontend({
      name: 'the Temporal server',
      executable: binaries.server,
      args: [
        '--root',
        root,
        '--config',
        'config',
        '--env',
        'development',
        '--allow-no-auth',
        'start',
      ],
      address,
      logPath,
      tls,
    });
  };
  await start();

  const connection = await Connection.connect({ address, tls });
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('3 days'),
    });
    // The frontend learns of a new namespace on its registry's next refresh (seconds).
    for (const deadline = Date.now() + 60_000; ;) {
      try {
        await connection.workflowService.describeNamespace({ namespace });
        await addSearchAttributes(connection, namespace);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    await untilSearchAttributesTaken(new Client({ connection, namespace }));
  } finally {
    await connection.close();
  }

  const stopServer = async () => {
    if (child) await stopProcess(child, 20_000);
  };
  return {
    address,
    ...(tls && { tls }),
    namespace,
    logPath,
    pid: () => child?.pid ?? 0,
    restart: async () => {
      await stopServer();
      await start();
    },
    stop: async () => {
      await stopServer();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const globalConfig = { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } };

/** What docker-compose's Temporal server is given (deploy/temporal-dynamic-config.yaml). */
const dynamicConfig = {
  'frontend.enableUpdateWorkflowExecution': [{ value: true }],
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted': [{ value: true }],
  ...Object.fromEntries(
    Object.entries(fairTaskQueueSettings).map(([key, value]) => [key, [{ value }]]),
  ),
};

function serverConfig(
  pg: URL,
  databases: { temporal: string; visibility: string },
  ports: Record<
    | 'frontend'
    | 'frontendHttp'
    | 'frontendMembership'
    | 'history'
    | 'historyMembership'
    | 'matching'
    | 'matchingMembership'
    | 'worker'
    | 'workerMembership',
    number
  >,
  dynamicConfigPath: string,
) {
  const datastore = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${pg.hostname}:${pg.port}`,
      connectProtocol: 'tcp',
      user: decodeURIComponent(pg.username),
      password: decodeURIComponent(pg.password),
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const rpc = (grpcPort: number, membershipPort: number, httpPort?: number) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...(httpPort && { httpPort }) },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: 4,
      datastores: {
        'postgres-default': datastore(databases.temporal, 20),
        'postgres-visibility': datastore(databases.visibility, 10),
      },
    },
    global: globalConfig,
    services: {
      frontend: rpc(ports.frontend, ports.frontendMembership, ports.frontendHttp),
      history: rpc(ports.history, ports.historyMembership),
      matching: rpc(ports.matching, ports.matchingMembership),
      worker: rpc(ports.worker, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: {
      archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    },
    dynamicConfigClient: { filepath: dynamicConfigPath, pollInterval: '10s' },
  };
}

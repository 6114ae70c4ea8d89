import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { reapChildrenOnExit, stopProcess } from './children';
import { freePort } from './free-port';
import {
  cacheDir,
  fromEnv,
  isExecutable,
  buildWithGo,
  runCommand,
  type Progress,
  type ResolvedTool,
} from './toolchain';
import { waitFor } from './wait-for';

/**
 * The trace collector and viewer of the dev and cluster stacks: Jaeger v2 (an OpenTelemetry
 * collector with Jaeger's storage and UI), the release docker-compose.yml deploys as
 * jaegertracing/jaeger:2.13.0 — its Go module is tagged v1.76.0 alongside. A unit test keeps the
 * two equal.
 */
export const jaegerModuleVersion = 'v1.76.0';
export const jaegerImageVersion = '2.13.0';

const jaegerModule = 'github.com/jaegertracing/jaeger';
const cachedBinary = join(cacheDir, `jaeger-${jaegerModuleVersion}`, 'jaeger');

/**
 * JAEGER_BIN, or Jaeger built with Go from the module proxy (once per machine, minutes; cached).
 * Its go.mod has replace directives, which `go install pkg@version` refuses: it is built as a
 * tool dependency of a throwaway module instead, which the proxy's versions then pin.
 */
export async function ensureJaeger(progress: Progress): Promise<ResolvedTool> {
  const given = fromEnv('JAEGER_BIN');
  if (given) return given;
  if (isExecutable(cachedBinary)) return { path: cachedBinary, source: 'cache' };
  await buildWithGo(
    `Jaeger ${jaegerModuleVersion}`,
    async (dir) => {
      const go = (args: string[]) =>
        runCommand('go', ['-C', dir, ...args], progress, {
          ...process.env,
          GOFLAGS: '-buildvcs=false',
        });
      progress(`building ${jaegerModule}@${jaegerModuleVersion} with Go (once; a few minutes)`);
      await go(['mod', 'init', 'jaeger-build']);
      await go(['get', '-tool', `${jaegerModule}/cmd/jaeger@${jaegerModuleVersion}`]);
      await go(['build', '-o', 'jaeger', `${jaegerModule}/cmd/jaeger`]);
      return [[join(dir, 'jaeger'), cachedBinary]];
    },
    'JAEGER_BIN',
  );
  return { path: cachedBinary, source: 'built now' };
}

export interface Jaeger {
  /** Where processes export spans: OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP). */
  otlpEndpoint: string;
  /** The UI and its JSON API (/api/traces/<trace id>, /api/services). */
  queryUrl: string;
  logPath: string;
  pid(): number;
  stop(): Promise<void>;
}

/** Jaeger with in-memory storage on free loopback ports. */
export async function startJaeger(progress: Progress): Promise<Jaeger> {
  const { path, source } = await ensureJaeger(progress);
  progress(`Jaeger ${jaegerModuleVersion} from ${source}`);
  const [otlp, query, queryGrpc, health] = await Promise.all([0, 0, 0, 0].map(() => freePort()));
  const at = (port: number | undefined) => `127.0.0.1:${port}`;
  const root = mkdtempSync(join(tmpdir(), 'jaeger-'));
  const configPath = join(root, 'config.yaml');
  // Jaeger's all-in-one configuration reduced to what the stack uses: OTLP in, memory, the UI.
  writeFileSync(
    configPath,
    stringify({
      service: {
        extensions: ['jaeger_storage', 'jaeger_query', 'healthcheckv2'],
        pipelines: {
          traces: {
            receivers: ['otlp'],
            processors: ['batch'],
            exporters: ['jaeger_storage_exporter'],
          },
        },
        telemetry: {
          // Its own metrics would take a fixed port (8888): nothing here reads them.
          metrics: { level: 'none' },
          logs: { level: 'warn' },
        },
      },
      extensions: {
        jaeger_query: {
          storage: { traces: 'memory' },
          http: { endpoint: at(query) },
          grpc: { endpoint: at(queryGrpc) },
        },
        jaeger_storage: { backends: { memory: { memory: { max_traces: 100_000 } } } },
        healthcheckv2: { use_v2: true, http: { endpoint: at(health) } },
      },
      receivers: { otlp: { protocols: { http: { endpoint: at(otlp) } } } },
      processors: { batch: {} },
      exporters: { jaeger_storage_exporter: { trace_storage: 'memory' } },
    }),
  );
  const logPath = join(root, 'jaeger.log');
  const log = openSync(logPath, 'a');
  reapChildrenOnExit();
  const child: ChildProcess = spawn(path, ['--config', configPath], {
    stdio: ['ignore', log, log],
  });
  const queryUrl = `http://${at(query)}`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`Jaeger exited; see ${logPath}`);
        return (await fetch(`${queryUrl}/api/services`).catch(() => undefined))?.ok === true;
      },
      `Jaeger on ${queryUrl} (its log: ${logPath})`,
      30_000,
    );
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return {
    otlpEndpoint: `http://${at(otlp)}`,
    queryUrl,
    logPath,
    pid: () => child.pid ?? 0,
    stop: async () => {
      await stopProcess(child);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

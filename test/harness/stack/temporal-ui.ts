import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { TestCertificates } from './test-certificates';
import { reapChildrenOnExit, stopProcess } from './children';
import { freePort } from './free-port';
import {
  cacheDir,
  isExecutable,
  buildWithGo,
  goInstall,
  type Progress,
  type ResolvedTool,
} from './toolchain';
import { waitFor } from './wait-for';

/**
 * The Web UI docker-compose.yml deploys (temporalio/ui:2.42.1), as the Temporal CLI pins it: its
 * module path is github.com/temporalio/ui-server/v2 (the module proxy refuses the vanity
 * go.temporal.io/ui-server/v2). A unit test keeps it equal to the compose file's image.
 */
export const temporalUiVersion = 'v2.42.1';

const cachedBinary = join(cacheDir, `temporal-ui-${temporalUiVersion}`, 'temporal-ui');

/** The UI server built with Go from the module proxy (once per machine, seconds), cached. */
export async function ensureTemporalUi(progress: Progress): Promise<ResolvedTool> {
  if (isExecutable(cachedBinary)) return { path: cachedBinary, source: 'cache' };
  await buildWithGo(`the Temporal Web UI ${temporalUiVersion}`, async (dir) => {
    progress(`building github.com/temporalio/ui-server/v2@${temporalUiVersion} with Go (once)`);
    await goInstall(
      `github.com/temporalio/ui-server/v2/cmd/server@${temporalUiVersion}`,
      dir,
      progress,
    );
    // `go install` names it `server`: kept under a name that says which.
    return [[join(dir, 'server'), cachedBinary]];
  });
  return { path: cachedBinary, source: 'built now' };
}

export interface TemporalUi {
  url: string;
  logPath: string;
  pid(): number;
  stop(): Promise<void>;
}

/** The Web UI on a free loopback port, against the frontend at `temporalAddress`. */
export async function startTemporalUi(options: {
  temporalAddress: string;
  progress: Progress;
  /** A frontend that requires mTLS: the UI server connects with the client certificate. */
  tls?: Pick<TestCertificates, 'ca' | 'client'>;
}): Promise<TemporalUi> {
  const { path, source } = await ensureTemporalUi(options.progress);
  options.progress(`Temporal Web UI ${temporalUiVersion} from ${source}`);
  const port = await freePort();
  const root = mkdtempSync(join(tmpdir(), 'temporal-ui-'));
  mkdirSync(join(root, 'config'));
  // The settings the compose file's image takes from TEMPORAL_ADDRESS and TEMPORAL_UI_PORT.
  writeFileSync(
    join(root, 'config', 'development.yaml'),
    stringify({
      temporalGrpcAddress: options.temporalAddress,
      ...(options.tls && {
        tls: {
          caFile: options.tls.ca,
          certFile: options.tls.client.cert,
          keyFile: options.tls.client.key,
          serverName: 'localhost',
          enableHostVerification: true,
        },
      }),
      host: '127.0.0.1',
      port,
      enableUi: true,
      defaultNamespace: 'default',
      cors: { cookieInsecure: true, allowOrigins: [`http://127.0.0.1:${port}`] },
    }),
  );
  const logPath = join(root, 'ui.log');
  const log = openSync(logPath, 'a');
  reapChildrenOnExit();
  const child: ChildProcess = spawn(
    path,
    ['--root', root, '--config', 'config', '--env', 'development', 'start'],
    { stdio: ['ignore', log, log] },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`the Temporal Web UI exited; see ${logPath}`);
        return (await fetch(url).catch(() => undefined))?.ok === true;
      },
      `the Temporal Web UI on ${url} (its log: ${logPath})`,
      30_000,
    );
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return {
    url,
    logPath,
    pid: () => child.pid ?? 0,
    stop: async () => {
      await stopProcess(child);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

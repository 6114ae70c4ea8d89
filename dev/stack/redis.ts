import { spawn } from 'node:child_process';
import Redis from 'ioredis';
import { stopProcess } from './anvil';
import { freePort } from './free-port';
import { onPath, ToolchainMissingError } from './temporal-binaries';

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/** A throwaway redis-server on loopback (no persistence), for tests and examples. */
export async function startRedis(): Promise<RedisServer> {
  const binary = process.env.REDIS_SERVER_PATH ?? onPath('redis-server');
  if (!binary) {
    throw new ToolchainMissingError(
      'redis-server not found: install it (Debian: apt-get install redis-server) or set REDIS_SERVER_PATH',
    );
  }
  const port = await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, {
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
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`redis-server did not start on port ${port}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { url, stop: () => stopProcess(child) };
}

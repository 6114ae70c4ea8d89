import { createServer } from 'node:net';

/** A port the OS reports free right now, so parallel test runs never collide on fixed ports. */
export function freePort(port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/**
 * A free port below the OS's ephemeral range, for what stores a port as a 16-bit signed number
 * (Temporal's cluster membership table): tried at random from 20000 to 32767.
 */
export async function freeLowPort(): Promise<number> {
  for (;;) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_768);
    const port = await freePort(candidate).catch(() => undefined);
    if (port) return port;
  }
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderModelProcess } from '../../dev/stack/provider-model-process';

/** A JSON-RPC endpoint answering every call with 0x1, on a loopback port. */
async function endpoint(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { id } = JSON.parse(body) as { id: number };
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' }));
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const call = (url: string, method: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  }).then((response) => response.status);

describe('the provider model in a process of its own', () => {
  it('keeps its quota and hands over the calls it saw, on the wall clock', async () => {
    const upstream = await endpoint();
    const model = await ProviderModelProcess.start(upstream.url);
    try {
      await call(model.url, 'eth_chainId'); // before any quota: not in the cell's log
      await model.takeLog();
      await model.enforceQuota({
        perSecond: 30,
        burst: 30,
        answer: 'http-429',
        window: 'sliding',
        weights: { eth_blockNumber: 10 },
      });
      const from = Date.now();
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push(await call(model.url, 'eth_blockNumber'));
      const to = Date.now();
      expect(statuses).toEqual([200, 200, 200, 429]);
      const log = await model.takeLog();
      expect(log.countsByMethod()).toEqual({ eth_blockNumber: 4 });
      expect(log.quotaRefusals()).toBe(1);
      for (const recorded of log.calls) {
        expect(log.wallTimeOf(recorded.startedAt)).toBeGreaterThanOrEqual(from - 1);
        expect(log.wallTimeOf(recorded.startedAt)).toBeLessThanOrEqual(to + 1);
      }
      expect((await model.takeLog()).calls).toEqual([]);
    } finally {
      await model.stop();
      await new Promise((closed) => upstream.server.close(closed));
    }
  });
});

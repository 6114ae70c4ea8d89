import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, http } from 'viem';
import { metered } from '../../chain/metered-transport';
import { RpcBudget } from '../../throttle/rpc-budget';
import { presetWeights } from '../../throttle/rpc-weights';
import { localSpendWindow } from '../../throttle/spend-window';

/** A JSON-RPC endpoint answering eth_blockNumber, on a loopback port. */
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

/** Holds this process's event loop, as a busy worker's does between a decision and its socket. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("a call's departure (undici's diagnostics channels)", () => {
  it('a call whose request left late moves its spend to when it left', async () => {
    const { server, url } = await endpoint();
    let stallNext = false;
    // 300 units a second: each 250-unit send fills the window for the next.
    const window = localSpendWindow({ perSecond: 300, burst: 300 });
    const budget = new RpcBudget(
      { unitsPerSecond: 300, weights: presetWeights('alchemy') },
      window,
      'the test endpoint',
      // Called between the window's answer and the request: a stall here delays the request.
      () => {
        if (stallNext) stall(80);
      },
    );
    const client = createPublicClient({ transport: metered(http(url), budget) });
    try {
      // The first request of a process loads fetch and connects: it may leave late too.
      await client.request({ method: 'eth_blockNumber' });
      const movedBefore = budget.tally().movedLate;
      stallNext = true;
      const askedAt = performance.now();
      await client.request({ method: 'eth_sendRawTransaction', params: ['0x00'] });
      expect(budget.tally().movedLate).toBe(movedBefore + 1);
      // The send counts from when it left, 80 ms or more after the answer: the next send waits
      // for the window's second from then, not from the answer.
      stallNext = false;
      await client.request({ method: 'eth_sendRawTransaction', params: ['0x00'] });
      expect(performance.now() - askedAt).toBeGreaterThan(80 + 1025);
    } finally {
      await budget.close();
      server.close();
    }
  });
});

import { ProviderModelProcess } from '../harness/stack/provider-model-process';
import { jsonRpcEndpoint } from '../harness/json-rpc-endpoint';

const call = (url: string, method: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  }).then((response) => response.status);

describe('the provider model in a process of its own', () => {
  it('keeps its quota and hands over the calls it saw, on the wall clock', async () => {
    const upstream = await jsonRpcEndpoint();
    const model = await ProviderModelProcess.start(upstream.url);
    try {
      await call(model.url, 'eth_chainId'); // before any quota: not in the cell's log
      await model.takeLog();
      // Three calls of 10 units, and a bucket that takes 1,000 s to earn one back.
      await model.enforceQuota({
        perSecond: 0.01,
        burst: 30,
        answer: 'http-429',
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

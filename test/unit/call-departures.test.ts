import { createPublicClient, http } from 'viem';
import { departing } from '../../chain/call-departures';
import { metered } from '../../chain/metered-transport';
import { RpcBudget } from '../../throttle/rpc-budget';
import { presetWeights } from '../../throttle/rpc-weights';
import { SendTurns } from '../../throttle/send-turns';
import { localSpendWindow } from '../../throttle/spend-window';
import { jsonRpcEndpoint } from '../harness/json-rpc-endpoint';

/** Holds this process's event loop, as a busy worker's does between a decision and its socket. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("a call's departure (undici's diagnostics channels)", () => {
  it('a call whose request left late moves its spend to when it left', async () => {
    const { server, url } = await jsonRpcEndpoint();
    let stallNext = false;
    // 300 units a second: each 250-unit send fills the window for the next.
    const window = localSpendWindow({ perSecond: 300, burst: 300 });
    const budget = new RpcBudget(
      { unitsPerSecond: 300, weights: presetWeights('alchemy') },
      window,
      'the test endpoint',
      // Called between the window's answer and the request: a stall here delays the request.
      () => {
        if (stallNext) stall(200);
      },
    );
    const client = createPublicClient({ transport: metered(http(url), budget) });
    try {
      // The first request of a process loads fetch and connects: it may leave late too. The
      // margin covers the spread above the least delay: these make the least a usual one.
      for (let i = 0; i < 5; i++) await client.request({ method: 'eth_blockNumber' });
      const movedBefore = budget.tally().movedLate;
      stallNext = true;
      const askedAt = performance.now();
      await client.request({ method: 'eth_sendRawTransaction', params: ['0x00'] });
      expect(budget.tally().movedLate).toBe(movedBefore + 1);
      // The send left 200 ms or more after the answer, the margin (25 ms assumed) and the least
      // delay covering a part: the next send waits for the window's second from 80 ms or more
      // after the answer.
      stallNext = false;
      await client.request({ method: 'eth_sendRawTransaction', params: ['0x00'] });
      expect(performance.now() - askedAt).toBeGreaterThan(1025 + 80);
    } finally {
      await budget.close();
      server.close();
    }
  });

  it('a send the sends window decided moves there too, inside the budget that metered it', async () => {
    const { server, url } = await jsonRpcEndpoint();
    let stallNext = false;
    const turns = new SendTurns(localSpendWindow({ perSecond: 1, burst: 1 }));
    const budget = new RpcBudget(
      { unitsPerSecond: 10_000, weights: presetWeights('per-call') },
      localSpendWindow({ perSecond: 10_000, burst: 10_000 }),
      'the test endpoint',
      () => {
        if (stallNext) stall(200);
      },
    );
    const client = createPublicClient({ transport: metered(http(url), budget) });
    try {
      await client.request({ method: 'eth_blockNumber' });
      const movedBefore = budget.tally().movedLate;
      const decidedAt = performance.now();
      const turn = await turns.next();
      if (!('departure' in turn)) throw new Error(`the first send waits ${turn.waitMs} ms`);
      stallNext = true;
      await departing(turn.departure, () =>
        client.request({ method: 'eth_sendRawTransaction', params: ['0x00'] }),
      );
      expect(budget.tally().movedLate).toBe(movedBefore + 1);
      // One send a second: the next may go a second (and the margin) after the first left, less
      // the margin's 25 ms and the least delay: 80 ms or more after the first was decided.
      const next = await turns.next();
      expect(performance.now() - decidedAt + next.waitMs).toBeGreaterThan(1025 + 80);
    } finally {
      turns.close();
      await budget.close();
      server.close();
    }
  });
});

import { RpcBudget } from '../../throttle/rpc-budget';
import { presetWeights } from '../../throttle/rpc-weights';

const budgetOf = (unitsPerSecond: number, burstUnits: number) =>
  new RpcBudget({ unitsPerSecond, burstUnits, weights: presetWeights('alchemy') });

describe('the RPC budget (Bottleneck, in process)', () => {
  it('spends each call by its weight, and lets a send that queued last go first', async () => {
    const budget = budgetOf(500, 260);
    await budget.ready();
    const spent: string[] = [];
    try {
      // 250 of 260 units: what follows waits for the refill.
      await budget.spend('eth_sendRawTransaction');
      const waiting = ['eth_getTransactionByHash', 'eth_getCode', 'eth_sendRawTransaction'].map(
        (method) => budget.spend(method).then(() => spent.push(method)),
      );
      await Promise.all(waiting);
      expect(spent[0]).toBe('eth_sendRawTransaction');
    } finally {
      await budget.close();
    }
  });

  it("pauses after a provider's refusal for its Retry-After", async () => {
    const budget = budgetOf(1000, 400);
    await budget.ready();
    try {
      const startedAt = Date.now();
      budget.refused('eth_blockNumber', 400);
      await budget.spend('eth_blockNumber');
      // Retry-After: 400 ms. Timers may fire a ms early.
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(350);
    } finally {
      await budget.close();
    }
  });

  it('without a Retry-After, pauses as long as the budget takes to earn the refused call back', async () => {
    const budget = budgetOf(1000, 400);
    await budget.ready();
    try {
      budget.refused('eth_sendRawTransaction');
      // 250 units at 980 units/s.
      expect(budget.pausedForMs()).toBeGreaterThan(200);
      expect(budget.pausedForMs()).toBeLessThanOrEqual(256);
    } finally {
      await budget.close();
    }
  });
});

import { RpcBudget } from '../../throttle/rpc-budget';
import { presetWeights, weightOf } from '../../throttle/rpc-weights';
import { localSpendWindow, type SpendWindow } from '../../throttle/spend-window';
import { log } from '../../domain/log';
import { tallyLine } from '../../workers/rpc-budgets';
import { budgetLines } from '../harness/stack/worker-process';

const budgetOf = (unitsPerSecond: number, burstUnits: number) =>
  new RpcBudget(
    { unitsPerSecond, weights: presetWeights('alchemy') },
    localSpendWindow({ perSecond: unitsPerSecond, burst: burstUnits }),
    'the test endpoint',
  );

describe('the RPC budget (a line by priority in front of a spend window, in process)', () => {
  it('spends each call by its weight; the line goes by priority', async () => {
    // Slow enough that the line is formed before the window has room again: at 500 units/s and a
    // burst of 260, a loaded machine took the 14 ms the first call waited and the line went FIFO.
    const budget = budgetOf(100, 250);
    const spent: string[] = [];
    try {
      // 250 of 250 units: what follows waits for room (the first call 170 ms).
      await budget.spend('eth_sendRawTransaction');
      const methods = [
        'eth_getTransactionByHash',
        'eth_getCode',
        'eth_sendRawTransaction',
        'eth_blockNumber',
      ];
      await Promise.all(
        methods.map((method) => budget.spend(method).then(() => spent.push(method))),
      );
      expect(spent).toEqual([
        'eth_blockNumber',
        'eth_sendRawTransaction',
        'eth_getTransactionByHash',
        'eth_getCode',
      ]);
      // The four behind the first waited in the line (the first too when the window's margin
      // held it). The stop line says so, as the bench reads it back.
      const tally = budget.tally();
      expect(tally.calls).toBe(5);
      expect(tally.lined).toBeGreaterThanOrEqual(4);
      expect(tally.linedMs).toBeGreaterThan(0);
      expect(budgetLines(`rpc budget the test endpoint: ${tallyLine(tally)}`)).toEqual({
        calls: 5,
        lined: tally.lined,
        linedMs: Math.round(tally.linedMs),
        marginMsSum: Number(tally.marginMs.mean.toFixed(1)) * 5,
        marginMostMs: tally.marginMs.most,
        units: tally.units,
        spanMs: Math.round(tally.spanMs),
        busyUnits: tally.busy.units,
        busyMs: Math.round(tally.busy.ms),
        wakes: tally.wakes.count,
        lateMs: Math.round(tally.wakes.lateMs),
        movedLate: tally.movedLate,
      });
      // Four of the five waited behind the first: the line held calls, spending their units.
      const firstSend = weightOf(presetWeights('alchemy'), 'eth_sendRawTransaction');
      expect(tally.busy.units).toBeGreaterThanOrEqual(tally.units - firstSend);
      expect(tally.busy.ms).toBeGreaterThan(0);
      expect(tally.busy.ms).toBeLessThanOrEqual(tally.spanMs + 1);
      expect(tally.wakes.count).toBeGreaterThan(0);
    } finally {
      await budget.close();
    }
  });

  it('a read that fits goes around a send waiting at the head, and the send goes at its time', async () => {
    // 300 units/s: after one send (250), the next waits for it to leave the window (1,025 ms);
    // a 20-unit read fits beside both.
    const budget = budgetOf(300, 300);
    const spent: string[] = [];
    try {
      await budget.spend('eth_sendRawTransaction');
      const startedAt = Date.now();
      const send = budget.spend('eth_sendRawTransaction').then(() => spent.push('send'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await budget.spend('eth_getTransactionByHash').then(() => spent.push('read'));
      expect(Date.now() - startedAt).toBeLessThan(500);
      await send;
      expect(spent).toEqual(['read', 'send']);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(950);
    } finally {
      await budget.close();
    }
  });

  it('a call whose window cannot be asked fails alone; the line goes on', async () => {
    // Each weight is told to wait the first time; then a send's window is unreachable.
    const asked = new Map<number, number>();
    const window: SpendWindow = {
      take: (units) => {
        const times = (asked.get(units) ?? 0) + 1;
        asked.set(units, times);
        if (times === 1) return Promise.resolve(50);
        return units === 250 ? Promise.reject(new Error('redis away')) : Promise.resolve(0);
      },
      refused: () => Promise.resolve(),
      leftLate: () => Promise.resolve(),
    };
    const budget = new RpcBudget(
      { unitsPerSecond: 1000, weights: presetWeights('alchemy') },
      window,
      'the test endpoint',
    );
    try {
      const send = budget.spend('eth_sendRawTransaction');
      const read = budget.spend('eth_getTransactionByHash');
      await expect(send).rejects.toThrow('redis away');
      await expect(read).resolves.toHaveProperty('left');
    } finally {
      await budget.close();
    }
  });

  it("pauses after a provider's refusal for its Retry-After", async () => {
    const budget = budgetOf(1000, 400);
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

  it('without a Retry-After, holds sends back as long as the window takes to earn the refused call back', async () => {
    const budget = budgetOf(1000, 400);
    try {
      budget.refused('eth_sendRawTransaction');
      // 250 units at 1,000 units/s.
      expect(budget.pausedForMs()).toBeGreaterThan(200);
      expect(budget.pausedForMs()).toBeLessThanOrEqual(250);
    } finally {
      await budget.close();
    }
  });

  it('reports refusals as one counted line a minute, not one per call', async () => {
    const warned = jest.spyOn(log, 'warn').mockImplementation(() => undefined);
    const budget = budgetOf(1000, 400);
    try {
      for (let refusal = 0; refusal < 5; refusal++) budget.refused('eth_blockNumber');
      expect(warned).toHaveBeenCalledTimes(1);
      expect(warned).toHaveBeenCalledWith(
        expect.stringMatching(/the test endpoint refused 1 call/),
      );
    } finally {
      await budget.close();
      warned.mockRestore();
    }
  });
});

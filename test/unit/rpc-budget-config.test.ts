import { ConfigError, loadConfig } from '../../workers/config/load';
import { retryAfterMs } from '../../chain/metered-transport';
import { priorityOf, weightOf } from '../../throttle/rpc-weights';

const base = { HOT_WALLET_KEYS: `0x${'1'.repeat(64)}` };
const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig({ ...base, ...env });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe('the RPC budget settings', () => {
  it('weighs every call one unit by default, and a preset by its table with overrides', () => {
    const plain = loadConfig(base).rpcWeights;
    expect(weightOf(plain, 'eth_sendRawTransaction')).toBe(1);
    const alchemy = loadConfig({
      ...base,
      RPC_WEIGHTS: 'alchemy,eth_call=30',
      RPC_BURST_UNITS: '500',
      RPC_UNITS_PER_SECOND: '330',
    }).rpcWeights;
    expect(weightOf(alchemy, 'eth_sendRawTransaction')).toBe(250);
    expect(weightOf(alchemy, 'eth_call')).toBe(30);
    expect(weightOf(alchemy, 'eth_getBlockReceipts')).toBe(500);
  });

  it('refuses an unknown method, a weight below one, and a budget that cannot pay for one send', () => {
    expect(problemsOf({ RPC_WEIGHTS: 'eth_sendRawTransactoin=2' })).toEqual([
      expect.stringMatching(/^RPC_WEIGHTS: eth_sendRawTransactoin is not a JSON-RPC method/),
    ]);
    expect(problemsOf({ RPC_WEIGHTS: 'per-call,eth_call=0' })).toEqual([
      expect.stringMatching(
        /^RPC_WEIGHTS: eth_call's weight must be a whole number of units from 1/,
      ),
    ]);
    expect(problemsOf({ RPC_WEIGHTS: 'alchemy' })).toEqual([
      expect.stringMatching(/^RPC_BURST_UNITS: must be at least 250/),
      expect.stringMatching(/^RPC_UNITS_PER_SECOND: must be at least 250/),
    ]);
  });

  it('the reads that decide intents go first, then sends, then what a send needs, then look-ups', () => {
    const order = [
      'eth_getBlockByNumber',
      'eth_sendRawTransaction',
      'eth_estimateGas',
      'eth_getTransactionByHash',
    ].map(priorityOf);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(new Set(order).size).toBe(4);
  });

  it("reads a provider's Retry-After in seconds or as a date", () => {
    expect(retryAfterMs('3')).toBe(3000);
    const now = Date.parse('2026-12-01T00:00:00Z');
    expect(retryAfterMs('Tue, 01 Dec 2026 00:00:02 GMT', now)).toBe(2000);
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

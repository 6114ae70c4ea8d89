import type { RelayerApiClient } from '../../cli/api-client';
import { amountsInUnits } from '../../cli/asset-units';

const usdt = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const api = {
  tokens: () =>
    Promise.resolve([{ chainId: 1, address: usdt, alias: 'USDT', symbol: 'USDT', decimals: 6 }]),
} as unknown as RelayerApiClient;

describe('amounts in units (deposits list, reconcile)', () => {
  it('names the native coin in ETH and a registered token by alias, in whole units', async () => {
    const inUnits = await amountsInUnits(api);
    expect(inUnits(1, 'native', '500000000000000000')).toBe('0.5 ETH');
    expect(inUnits(1, 'native:1', '1000000000000000000')).toBe('1 ETH');
    expect(inUnits(1, usdt.toLowerCase(), '250000000')).toBe('250 USDT');
    expect(inUnits(1, `erc20:1:${usdt}`, '1500000')).toBe('1.5 USDT');
  });

  it('leaves a token it cannot name (unregistered, or on another chain) in base units', async () => {
    const inUnits = await amountsInUnits(api);
    expect(inUnits(2, usdt, '250000000')).toBe(`250000000 (base units of ${usdt})`);
  });
});

import { Registry } from 'prom-client';
import { parseEther } from 'viem';
import type { Chain, ChainRegistry } from '../../chain/chain';
import { watchWallets } from '../../workers/wallet-watch';
import { log as relayerLog } from '../../domain/log';

const wallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('the wallet watch of a worker', () => {
  afterEach(() => jest.useRealTimers());

  it('keeps the balance metric, and logs a wallet going below the low mark once and its top-up', async () => {
    jest.useFakeTimers();
    let balance = parseEther('1');
    // A seam: only what the watch reads of a chain.
    const chain = {
      walletAddresses: [wallet],
      walletBalance: async () => balance,
    } as unknown as Chain;
    const chains: ChainRegistry = { chainIds: [5], get: () => chain };
    const metrics = new Registry();
    const warn = jest.spyOn(relayerLog, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(relayerLog, 'info').mockImplementation(() => undefined);
    const watch = watchWallets({
      chains,
      metrics,
      lowBalanceWei: parseEther('0.5'),
      everyMs: 1000,
    });
    try {
      await jest.advanceTimersByTimeAsync(0);
      expect(await metrics.getSingleMetricAsString('relayer_wallet_balance_ether')).toContain(
        `relayer_wallet_balance_ether{chain_id="5",wallet="${wallet}",role="hot"} 1`,
      );
      balance = parseEther('0.2');
      await jest.advanceTimersByTimeAsync(3000);
      expect(warn.mock.calls.map(([line]) => line)).toEqual([
        expect.stringContaining(`wallet ${wallet} on chain 5: 0.2 ETH, below its low mark 0.5`),
      ]);
      balance = parseEther('2');
      await jest.advanceTimersByTimeAsync(1000);
      expect(log.mock.calls.map(([line]) => line)).toEqual([
        expect.stringContaining('topped up, 2 ETH'),
      ]);
    } finally {
      watch.stop();
      warn.mockRestore();
      log.mockRestore();
    }
  });
});

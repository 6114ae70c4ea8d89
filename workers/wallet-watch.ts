import { Gauge, type Registry } from 'prom-client';
import { formatEther } from 'viem';
import type { ChainRegistry } from '../chain/chain';
import { log } from '../domain/log';

export interface WalletWatchSettings {
  chains: ChainRegistry;
  metrics: Registry;
  /** Below this (wei) a wallet is logged as low, once until it is topped up. */
  lowBalanceWei: bigint;
  everyMs: number;
  /** Runs before each look (taking on wallets added at run time); never throws. */
  beforeEachLook?: () => Promise<void>;
}

/**
 * Reads every hot wallet's balance every `everyMs` (through the RPC budget, once per block at
 * most) into `relayer_wallet_balance_ether`, and logs a wallet going below the low mark and
 * coming back above it. Sends that waited for funds resume on their own: their steps retry.
 */
export function watchWallets({
  chains,
  metrics,
  lowBalanceWei,
  everyMs,
  beforeEachLook,
}: WalletWatchSettings): {
  stop(): void;
} {
  const balance = new Gauge({
    name: 'relayer_wallet_balance_ether',
    help: "Balance of each hot wallet and each chain's treasury, in ether",
    labelNames: ['chain_id', 'wallet', 'role'],
    registers: [metrics],
  });
  const low = new Set<string>();
  async function look(): Promise<void> {
    await beforeEachLook?.();
    for (const chainId of chains.chainIds) {
      const chain = chains.get(chainId);
      // The treasury's low mark is told by its top-up sweep (treasury.low_balance), not here.
      if (chain.treasury) {
        const { address } = chain.treasury;
        const wei = await chain.walletBalance(address);
        balance.set(
          { chain_id: String(chainId), wallet: address, role: 'treasury' },
          Number(formatEther(wei)),
        );
      }
      for (const wallet of chain.walletAddresses) {
        const wei = await chain.walletBalance(wallet);
        balance.set({ chain_id: String(chainId), wallet, role: 'hot' }, Number(formatEther(wei)));
        const key = `${chainId}/${wallet}`;
        const mark = chain.lowBalanceWei ?? lowBalanceWei;
        if (wei < mark && !low.has(key)) {
          low.add(key);
          log.warn(
            `wallet ${wallet} on chain ${chainId}: ${formatEther(wei)} ETH, below its low mark ${formatEther(mark)} (LOW_BALANCE_ETH, or the chain's lowBalanceEth): ${chain.treasury ? 'its top-up sweep sends it funds from the treasury' : 'top it up (no treasury: TREASURY_WALLET)'}`,
          );
        } else if (wei >= mark && low.delete(key)) {
          log.info(`wallet ${wallet} on chain ${chainId}: topped up, ${formatEther(wei)} ETH`);
        }
      }
    }
  }
  const lookNow = () => look().catch((error: Error) => log.error(`wallet watch: ${error.message}`));
  void lookNow();
  const timer = setInterval(lookNow, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

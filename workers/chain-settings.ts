import type { EvmChainSettings, RpcResponseEvent } from '../activities/chain/evm-chain';
import type { RelayerConfig } from './config';

/** The EVM chain a worker process sends on, as its configuration describes it. */
export const evmChainSettings = (
  config: RelayerConfig,
  onRpcResponse?: (event: RpcResponseEvent) => void,
): EvmChainSettings => ({
  chainId: config.chainId,
  rpcUrls: config.rpcUrls,
  hotWalletKeys: config.hotWalletKeys,
  confirmations: config.confirmations,
  pollIntervalMs: config.pollIntervalMs,
  rpcTimeoutMs: config.rpcTimeoutMs,
  stuckAfterMs: config.stuckAfterMs,
  fees: {
    caps: {
      maxFeePerGas: config.maxFeePerGas,
      maxPriorityFeePerGas: config.maxPriorityFeePerGas,
      maxFeePerTransfer: config.maxFeePerTransfer,
    },
    replacementBumpPercent: config.replacementBumpPercent,
  },
  onRpcResponse,
});

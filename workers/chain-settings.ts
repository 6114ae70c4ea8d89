import type { EvmChainSettings, RpcResponseEvent } from '../chain/evm-chain';
import type { ChainReadSharing } from './chain-read-sharing';
import type { RelayerConfig } from './config/load';
import type { RpcBudgets } from './rpc-budgets';
import type { WalletSigner } from '../chain/signers/wallet-signer';
import { walletSigners } from './wallet-signers';

/** Every EVM chain a worker process sends on: CHAIN_ID first, then EXTRA_CHAINS; one set of signers. */
export const evmChainsSettings = (
  config: RelayerConfig,
  onRpcResponse?: (event: RpcResponseEvent) => void,
  budgets?: RpcBudgets,
  signers: readonly WalletSigner[] = walletSigners(config),
  sharing?: ChainReadSharing,
): EvmChainSettings[] =>
  [{ chainId: config.chainId, rpcUrls: config.rpcUrls }, ...config.extraChains].map((chain) => ({
    ...evmChainSettings(config, onRpcResponse, chain, signers),
    ...(budgets && { budget: budgets.forChain(chain.chainId) }),
    ...(sharing && { shareReads: sharing.share }),
  }));

/** One EVM chain as the configuration describes it (CHAIN_ID's unless `chain` is given). */
export const evmChainSettings = (
  config: RelayerConfig,
  onRpcResponse?: (event: RpcResponseEvent) => void,
  chain: { chainId: number; rpcUrls: string[] } = config,
  signers: readonly WalletSigner[] = walletSigners(config),
): EvmChainSettings => ({
  chainId: chain.chainId,
  rpcUrls: chain.rpcUrls,
  signers,
  confirmations: config.confirmations,
  blockTimeMs: config.blockTimeMs,
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
    cancelMaxFeePerGas: config.cancelMaxFeePerGas,
  },
  onRpcResponse,
});

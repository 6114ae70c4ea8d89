import type { EvmChainSettings, RpcResponseEvent } from '../chain/evm-chain';
import type { ChainReadSharing } from './chain-read-sharing';
import type { ChainConfig } from './config/chains-file';
import type { RelayerConfig } from './config/load';
import type { RpcBudgets } from './rpc-budgets';
import type { WalletSigner } from '../chain/signers/wallet-signer';
import { walletSigners } from './wallet-signers';

/** Every EVM chain a worker process sends on, as `config.chains` gives them; one set of signers. */
export const evmChainsSettings = (
  config: RelayerConfig,
  onRpcResponse?: (event: RpcResponseEvent) => void,
  budgets?: RpcBudgets,
  signers: readonly WalletSigner[] = walletSigners(config),
  sharing?: ChainReadSharing,
): EvmChainSettings[] =>
  config.chains.map((chain) => ({
    ...evmChainSettings(config, onRpcResponse, chain, signers),
    ...(budgets && { budget: budgets.forChain(chain.chainId) }),
    ...(sharing && { shareReads: sharing.share }),
  }));

/** One EVM chain as the configuration describes it (the first of `config.chains` by default). */
export const evmChainSettings = (
  config: RelayerConfig,
  onRpcResponse?: (event: RpcResponseEvent) => void,
  chain: ChainConfig = config.chains[0]!,
  signers: readonly WalletSigner[] = walletSigners(config),
): EvmChainSettings => ({
  chainId: chain.chainId,
  rpcUrls: chain.endpoints.map((endpoint) => endpoint.url),
  // A chain with a wallet list sends only from those of the process's wallets.
  signers: chain.wallets
    ? signers.filter((signer) => chain.wallets!.includes(signer.account.address))
    : signers,
  confirmations: chain.confirmations,
  blockTimeMs: chain.blockTimeMs,
  pollIntervalMs: config.pollIntervalMs,
  rpcTimeoutMs: config.rpcTimeoutMs,
  stuckAfterMs: config.stuckAfterMs,
  gasPricing: chain.gasPricing,
  lowBalanceWei: chain.lowBalanceWei,
  finality: chain.finality,
  fees: {
    caps: {
      maxFeePerGas: chain.maxFeePerGas,
      maxPriorityFeePerGas: chain.maxPriorityFeePerGas,
      maxFeePerTransfer: chain.maxFeePerTransfer,
    },
    replacementBumpPercent: config.replacementBumpPercent,
    cancelMaxFeePerGas: config.cancelMaxFeePerGas,
  },
  onRpcResponse,
});

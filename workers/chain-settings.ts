import type { EvmChainSettings, RpcResponseEvent } from '../chain/evm/settings';
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
  ...treasuryOf(chain, signers),
  ...(chain.depositFactory && { depositFactory: chain.depositFactory }),
  // A chain with a wallet list sends only from those of the process's wallets. A treasury pays
  // no intent on any chain: a chain without one of its own does not make another's a hot wallet.
  signers: signers.filter(
    ({ account: { address } }) =>
      !treasuriesOf(config).has(address) && (!chain.wallets || chain.wallets.includes(address)),
  ),
  confirmations: chain.confirmations,
  blockTimeMs: chain.blockTimeMs,
  pollIntervalMs: config.pollIntervalMs,
  rpcTimeoutMs: config.rpcTimeoutMs,
  stuckAfterMs: config.stuckAfterMs,
  delayedAfterMs: config.delayedAfterMs,
  delayedNoticesMax: config.delayedNoticesMax,
  speedUpsMax: config.speedUpsMax,
  baseFeeFloorPerGas: chain.baseFeeFloorPerGas,
  family: chain.family,
  minPriorityFeePerGas: chain.minPriorityFeePerGas,
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

/** The chain's treasury, and its signer where this process holds the key. */
function treasuryOf(
  chain: ChainConfig,
  signers: readonly WalletSigner[],
): Pick<EvmChainSettings, 'treasury' | 'treasurySigner'> {
  if (!chain.treasury) return {};
  const signer = signers.find(({ account }) => account.address === chain.treasury!.address);
  return {
    treasury: { ...chain.treasury, topUpTargetWei: chain.topUpTargetWei },
    ...(signer && { treasurySigner: signer }),
  };
}

/** Every chain's treasury: none of them is a hot wallet anywhere. */
const treasuriesOf = (config: RelayerConfig): Set<string> =>
  new Set(config.chains.flatMap((chain) => (chain.treasury ? [chain.treasury.address] : [])));

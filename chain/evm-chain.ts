import { UnknownChainError } from '../domain/errors';
import type { Chain, ChainActions, ChainRegistry, ChainSettings } from './chain';
import { tokenBalance, walletBalance } from './evm/balances';
import { broadcast } from './evm/broadcast';
import { createEvmContext, type EvmContext } from './evm/context';
import { blockNumber, finalizedBlock, nextLookInMs, ready } from './evm/head';
import { minedNonce, pendingNonce, settledNonce } from './evm/nonces';
import { knownToAnyEndpoint, lookupTransfer, observe, observeAtNode } from './evm/observe';
import { planCancel, planReplacement, planTransfer } from './evm/plan-transfer';
import type { EvmChainSettings } from './evm/settings';
import { signTransfer } from './evm/sign-transfer';
import { probeDelivery, simulatePayment, tokenInfo } from './evm/tokens';
import { simulateCall } from './evm/simulate-call';
import { inboundOf, inboundTransfers } from './evm/deposit-reads';
import { balancesAt, sweepOutcome } from './evm/deposit-sweeps';
import { blocksSince } from './evm/blocks-since';

/**
 * An EVM chain as the relayer uses it: the chain's context (its viem clients over every endpoint,
 * the blocks it watches, its signers; chain/evm/context.ts) and the actions on it, one concept
 * per file of chain/evm/, each taking the context first as viem's actions take a client.
 */
export function createEvmChain(settings: EvmChainSettings): Chain {
  const context = createEvmContext(settings);
  return { ...chainSettingsOf(settings, context), ...chainActionsOf(settings, context) };
}

/** The actions, each of chain/evm/ on the chain's context. */
function chainActionsOf(settings: EvmChainSettings, context: EvmContext): ChainActions {
  const { signers, watcher, walletAddresses, gates } = context;
  return {
    firstLookInMs: () =>
      settings.blockTimeMs === 0
        ? 0
        : nextLookInMs(context) + settings.blockTimeMs * (settings.confirmations - 1),
    nextLookInMs: () => nextLookInMs(context),
    pausedForMs: () => Math.max(0, ...gates.map((gate) => gate.pausedForMs())),
    addSigner(signer) {
      const key = signer.account.address.toLowerCase();
      if (signers.has(key)) return false;
      signers.set(key, signer);
      walletAddresses.push(signer.account.address);
      watcher.watchWallet(signer.account.address);
      return true;
    },

    blockNumber: (maxAgeMs) => blockNumber(context, { maxAgeMs }),
    blocksSince: (after) => blocksSince(context, { after }),
    finalizedBlock: () => finalizedBlock(context),
    ready: () => ready(context),
    pendingNonce: (address) => pendingNonce(context, { address }),
    minedNonce: (address) => minedNonce(context, { address }),
    settledNonce: (address) => settledNonce(context, { address }),
    walletBalance: (address) => walletBalance(context, { address }),
    tokenBalance: (token, wallet) => tokenBalance(context, { token, wallet }),
    tokenInfo: (token) => tokenInfo(context, { token }),
    simulatePayment: (from, call) => simulatePayment(context, { from, ...call }),
    simulateCall: (from, call) => simulateCall(context, { from, ...call }),
    probeDelivery: (token, wallet, amount) => probeDelivery(context, { token, wallet, amount }),
    expectRecipients: (addresses) => context.codes.probeNow(addresses),
    hasCode: (address) => context.rpc(context.codes.hasCode(address)),

    planTransfer: (request) => planTransfer(context, request),
    planReplacement: (previous, asked) => planReplacement(context, { previous, asked }),
    planCancel: (wallet, attempts) => planCancel(context, { wallet, attempts }),
    signTransfer: (plan, nonce) => signTransfer(context, { plan, nonce }),
    broadcast: (signed) => broadcast(context, signed),
    observe: (txHash, signedAt) => observe(context, { txHash, signedAt }),
    observeAtNode: (txHash) => observeAtNode(context, { txHash }),
    knownToAnyEndpoint: (txHash) => knownToAnyEndpoint(context, { txHash }),
    lookupTransfer: (txHash) => lookupTransfer(context, { txHash }),
    inboundTransfers: (addresses, fromBlock, toBlock) =>
      inboundTransfers(context, { addresses, fromBlock, toBlock }),
    inboundOf: (txHash) => inboundOf(context, { txHash }),
    sweepOutcome: (txHash, factory) => sweepOutcome(context, { txHash, factory }),
    balancesAt: (address, assets, blockNumber) =>
      balancesAt(context, { address, assets, blockNumber }),
  };
}

/** The chain's fixed facts, from its settings and the context built on them. */
function chainSettingsOf(settings: EvmChainSettings, context: EvmContext): ChainSettings {
  return {
    chainId: context.chainId,
    confirmations: settings.confirmations,
    maxFeePerTransfer: settings.fees.caps.maxFeePerTransfer,
    ...(settings.lowBalanceWei !== undefined && { lowBalanceWei: settings.lowBalanceWei }),
    ...(settings.treasury && { treasury: settings.treasury }),
    ...(settings.depositFactory && { depositFactory: settings.depositFactory }),
    walletAddresses: context.walletAddresses,
    stuckAfterMs: settings.stuckAfterMs,
    delayedAfterMs:
      settings.delayedAfterMs === undefined || settings.delayedAfterMs === 'auto'
        ? 3 * Math.max(settings.blockTimeMs, settings.pollIntervalMs)
        : settings.delayedAfterMs,
    delayedNoticesMax: settings.delayedNoticesMax ?? 3,
    speedUpsMax: settings.speedUpsMax ?? 3,
    baseFeeFloorPerGas: settings.baseFeeFloorPerGas ?? 0n,
    family: settings.family ?? 'ethereum',
    pollIntervalMs: settings.pollIntervalMs,
    headMaxAgeMs: context.lookMaxAgeMs,
    // Ten blocks later than it could first be deep enough (a send may wait for budget after its
    // signing; a node losing a transaction is rare); on automine, two polls.
    askNodeAfterMs:
      settings.blockTimeMs > 0
        ? settings.blockTimeMs * (settings.confirmations + 10)
        : settings.pollIntervalMs * 2,
  };
}

export function createChainRegistry(chains: Chain[]): ChainRegistry {
  const byId = new Map(chains.map((chain) => [chain.chainId, chain]));
  return {
    chainIds: [...byId.keys()],
    get(chainId) {
      const chain = byId.get(chainId);
      if (!chain) throw new UnknownChainError(chainId);
      return chain;
    },
  };
}

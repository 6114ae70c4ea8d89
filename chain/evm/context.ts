import {
  createPublicClient,
  fallback,
  http,
  TransactionNotFoundError,
  type PublicClient,
  type Transaction,
} from 'viem';
import {
  RpcUnavailableError,
  TransferRejectedError,
  UnknownWalletError,
  WalletUnderfundedError,
} from '../../domain/errors';
import type { Hex } from '../../domain/transfer';
import { BlockWatcher, type WatchedBlock } from '../block-watcher';
import { ownChainReads, type ChainReads } from '../chain-reads';
import type { GasPricing } from '../chain-traits';
import { CodeProbe } from '../code-probe';
import { classifyRpcError, RpcErrorKind } from '../evm-rpc-errors';
import { backgroundPriority, metered, type RpcGate } from '../metered-transport';
import { traced } from '../traced-transport';
import type { WalletSigner } from '../signers/wallet-signer';
import { blocksKept, endpointLabel, type EvmChainSettings } from './settings';

/** How long an address's code (or its absence) is trusted: code can appear (CREATE2, EIP-7702). */
const codeCacheMs = 10 * 60_000;

/**
 * What a call to the node may throw, typed (every action below can): the node unreachable or
 * refusing for now (retryable), the transaction refused for good, or its wallet short of gas.
 */
export type RpcErrorType = RpcUnavailableError | TransferRejectedError | WalletUnderfundedError;

/**
 * What every action of one chain shares: its clients, the blocks it watches, its reads (shared
 * with the fleet or its own), its signers, and the wrapper that types a node's refusals. Each
 * action (chain/evm/*.ts) takes it first, as viem's actions take a client.
 */
export interface EvmContext {
  chainId: number;
  settings: EvmChainSettings;
  /** One client over every endpoint, in order (viem's fallback). */
  client: PublicClient;
  /** The same, its calls behind every other in the budget's line (deposit scans). */
  background: PublicClient;
  /** Each endpoint on its own, for the questions whose answer is "no endpoint has it". */
  endpointClients: PublicClient[];
  /** The budget's gate of each endpoint (none without a budget). */
  gates: RpcGate[];
  reads: ChainReads;
  watcher: BlockWatcher;
  codes: CodeProbe;
  gasPricing: GasPricing;
  /** How old the head may be for a look. */
  lookMaxAgeMs: number;
  /** Grows when a wallet is added at run time: readers see the same array. */
  walletAddresses: Hex[];
  signers: Map<string, WalletSigner>;
  signerFor(address: Hex): WalletSigner;
  /** Awaits `call`, turning a node's refusal into the relayer's typed error. */
  rpc<T>(call: Promise<T>, wallet?: Hex): Promise<T>;
  /** A node's refusal as the relayer's typed error (see the RPC error table). */
  typed(error: unknown, wallet?: Hex): RpcErrorType;
  /** The node's transaction by hash; undefined when it does not know it. */
  findTransaction(txHash: Hex): Promise<Transaction | undefined>;
  /** Each wallet's last native balance read, by lower-case address (chain/evm/balances.ts). */
  balances: Map<string, { block: WatchedBlock; wei: bigint; readAt: number }>;
}

/**
 * One viem client per chain over every endpoint of the chain, in order (viem's fallback moves to
 * the next on a timeout, 429 or 5xx; a refusal of the transaction itself is final). Retries are
 * off in the transports and the fallback: Temporal's retry policy is the only retry layer, so
 * every RPC call is one the quota knows about.
 */
export function createEvmContext(settings: EvmChainSettings): EvmContext {
  const { chainId } = settings;
  const { client, background, endpoints, gates, unitsOf } = rpcClients(settings);
  const signers = new Map(
    [...settings.signers, ...(settings.treasurySigner ? [settings.treasurySigner] : [])].map(
      (signer) => [signer.account.address.toLowerCase(), signer],
    ),
  );
  const walletAddresses = settings.signers.map((signer) => signer.account.address);
  const typed = typedRpcError(chainId);
  const rpc = async <T>(call: Promise<T>, wallet?: Hex): Promise<T> => {
    try {
      return await call;
    } catch (error) {
      throw typed(error, wallet);
    }
  };
  const own = ownChainReads(client);
  const reads = settings.shareReads?.(chainId, own) ?? own;
  const watcher = new BlockWatcher(client, reads, {
    blockTimeMs: settings.blockTimeMs,
    wallets: walletAddresses,
    // A hole costs a read per block, every look that misses coverage a read per hash: with blocks
    // of many intents, fill more. On automine a block is a transaction: fall back sooner.
    maxHole: settings.blockTimeMs > 0 ? 16 : 4,
    keep: blocksKept(settings.confirmations),
    blockReceiptsCheaper: (ours) =>
      unitsOf('eth_getBlockReceipts') <= (settings.budget?.burstUnits ?? Infinity) &&
      unitsOf('eth_getBlockReceipts') <= ours * unitsOf('eth_getTransactionReceipt'),
  });
  // A block, when the block time is known (the watcher reads again once the next block is due);
  // a quarter of a poll on automine.
  const lookMaxAgeMs =
    settings.blockTimeMs > 0 ? settings.blockTimeMs : Math.min(250, settings.pollIntervalMs / 4);

  return {
    chainId,
    settings,
    client,
    background,
    endpointClients: endpoints.map((endpoint) =>
      createPublicClient({ transport: endpoint, cacheTime: 0 }),
    ),
    gates,
    reads,
    watcher,
    // The recipients of a block's time go in one probe (a quarter poll on automine).
    codes: new CodeProbe(client, lookMaxAgeMs, codeCacheMs),
    gasPricing: settings.gasPricing ?? 'eip1559',
    lookMaxAgeMs,
    walletAddresses,
    signers,
    signerFor(address) {
      const signer = signers.get(address.toLowerCase());
      if (!signer) throw new UnknownWalletError(chainId, address);
      return signer;
    },
    rpc,
    typed,
    async findTransaction(txHash) {
      try {
        return await client.getTransaction({ hash: txHash });
      } catch (error) {
        if (error instanceof TransactionNotFoundError) return undefined;
        throw typed(error);
      }
    },
    balances: new Map(),
  };
}

/**
 * The chain's clients: the steps' and the background reads' (a lower priority in the budget),
 * each over every endpoint in order, metered by its budget and traced when traces are on.
 */
function rpcClients(settings: EvmChainSettings) {
  const { budget } = settings;
  const gates = budget ? settings.rpcUrls.map((url) => budget.gateFor(url)) : [];
  const unitsOf = (method: string) => budget?.unitsOf(method) ?? 1;
  const endpointsAt = (priority?: number) =>
    settings.rpcUrls.map((url, i) => {
      const endpoint = http(url, { retryCount: 0, timeout: settings.rpcTimeoutMs });
      const spending = budget ? metered(endpoint, gates[i]!, priority) : endpoint;
      return settings.traced
        ? traced(spending, { endpoint: endpointLabel(url), unitsOf })
        : spending;
    });
  const endpoints = endpointsAt();
  const clientAt = (priority?: number) =>
    createPublicClient({
      transport: fallback(priority === undefined ? endpoints : endpointsAt(priority), {
        retryCount: 0,
      }),
      // viem waits 4 s between polls on a chain without a known block time; we poll ourselves.
      pollingInterval: settings.pollIntervalMs,
      cacheTime: 0,
    });
  const client = clientAt();
  const background = clientAt(backgroundPriority);
  const { onRpcResponse } = settings;
  // The background reads (deposit scans) are counted with the rest.
  if (onRpcResponse) {
    for (const each of [client, background]) {
      each.transport.onResponse(({ method, status, transport: endpoint }) =>
        onRpcResponse({
          chainId: settings.chainId,
          endpoint: endpointLabel(String((endpoint.value as { url?: string } | undefined)?.url)),
          method,
          ok: status === 'success',
        }),
      );
    }
  }
  return { client, background, endpoints, gates, unitsOf };
}

/** A node's refusal as the relayer's typed error (see the RPC error table). */
const typedRpcError =
  (chainId: number) =>
  (error: unknown, wallet?: Hex): RpcErrorType => {
    const { kind, action } = classifyRpcError(error);
    if (kind === RpcErrorKind.insufficientFunds && wallet) {
      return new WalletUnderfundedError(chainId, wallet, error);
    }
    if (action === 'fail') return new TransferRejectedError(chainId, kind, error);
    return new RpcUnavailableError(chainId, kind, error);
  };

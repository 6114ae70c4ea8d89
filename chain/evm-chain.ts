import {
  createPublicClient,
  fallback,
  getAddress,
  http,
  keccak256,
  recoverTransactionAddress,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  zeroAddress,
  type TransactionSerializedEIP1559,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  FeeAboveCapError,
  RpcUnavailableError,
  TransferRejectedError,
  UnknownChainError,
  UnknownWalletError,
  WalletUnderfundedError,
} from '../domain/errors';
import type {
  BroadcastOutcome,
  Chain,
  ChainRegistry,
  ObservedTransfer,
  TransactionObservation,
} from './chain';
import type { Hex, SignedTransfer, TransferPlan, TransferRequest } from '../domain/transfer';
import { classifyRpcError, RpcErrorKind } from './evm-rpc-errors';
import {
  firstBid,
  replacementBid,
  type FeeChoice,
  type FeeMarket,
  type FeePolicy,
} from './fee-policy';

/** One JSON-RPC request as one endpoint answered it: the per-endpoint metrics count these. */
export interface RpcResponseEvent {
  chainId: number;
  /** host:port of the endpoint (never its path or credentials: provider keys live there). */
  endpoint: string;
  method: string;
  ok: boolean;
}

export interface EvmChainSettings {
  chainId: number;
  rpcUrls: string[];
  hotWalletKeys: Hex[];
  confirmations: number;
  blockTimeMs: number;
  pollIntervalMs: number;
  rpcTimeoutMs: number;
  stuckAfterMs: number;
  fees: FeePolicy;
  onRpcResponse?: (event: RpcResponseEvent) => void;
}

export const endpointLabel = (url: string): string => new URL(url).host;

/** The base fee can rise 12.5% a block; twice today's base fee stays valid for six full blocks. */
const baseFeeHeadroom = 2n;

/**
 * One viem client per chain over every endpoint of the chain, in order (viem's fallback moves to
 * the next on a timeout, 429 or 5xx; a refusal of the transaction itself is final). Retries are
 * off in the transports and the fallback: Temporal's retry policy is the only retry layer, so
 * every RPC call is one the quota knows about.
 */
export function createEvmChain(settings: EvmChainSettings): Chain {
  const { chainId } = settings;
  const transport = fallback(
    settings.rpcUrls.map((url) => http(url, { retryCount: 0, timeout: settings.rpcTimeoutMs })),
    { retryCount: 0 },
  );
  const client = createPublicClient({
    transport,
    // viem waits 4 s between polls on a chain without a known block time; we poll ourselves.
    pollingInterval: settings.pollIntervalMs,
    cacheTime: 0,
  });
  const { onRpcResponse } = settings;
  if (onRpcResponse) {
    client.transport.onResponse(({ method, status, transport: endpoint }) =>
      onRpcResponse({
        chainId,
        endpoint: endpointLabel(String((endpoint.value as { url?: string } | undefined)?.url)),
        method,
        ok: status === 'success',
      }),
    );
  }
  const accounts = new Map<string, PrivateKeyAccount>(
    settings.hotWalletKeys.map((key) => {
      const account = privateKeyToAccount(key);
      return [account.address.toLowerCase(), account];
    }),
  );
  const accountFor = (address: Hex): PrivateKeyAccount => {
    const account = accounts.get(address.toLowerCase());
    if (!account) throw new UnknownWalletError(chainId, address);
    return account;
  };

  /** Turns a node's refusal into the relayer's typed error (see the RPC error table). */
  function typed(error: unknown, wallet?: Hex): Error {
    const { kind, action } = classifyRpcError(error);
    if (kind === RpcErrorKind.insufficientFunds && wallet) {
      return new WalletUnderfundedError(chainId, wallet, error);
    }
    if (action === 'fail') return new TransferRejectedError(chainId, kind, error);
    return new RpcUnavailableError(chainId, kind, error);
  }

  const rpc = async <T>(call: Promise<T>, wallet?: Hex): Promise<T> => {
    try {
      return await call;
    } catch (error) {
      throw typed(error, wallet);
    }
  };

  async function findTransaction(txHash: Hex) {
    try {
      return await client.getTransaction({ hash: txHash });
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return undefined;
      throw typed(error);
    }
  }

  async function feeMarket(): Promise<FeeMarket> {
    const [block, tip] = await rpc(
      Promise.all([client.getBlock({ blockTag: 'latest' }), client.estimateMaxPriorityFeePerGas()]),
    );
    const baseFeePerGas = block.baseFeePerGas ?? 0n;
    return {
      baseFeePerGas,
      maxFeePerGas: baseFeePerGas * baseFeeHeadroom + tip,
      maxPriorityFeePerGas: tip,
    };
  }

  const chosen = (choice: FeeChoice) => {
    if (!choice.ok) throw new FeeAboveCapError(chainId, choice.reason, settings.stuckAfterMs);
    return choice.bid;
  };

  const chain: Chain = {
    chainId,
    confirmations: settings.confirmations,
    firstLookAfterMs: settings.blockTimeMs * settings.confirmations,
    pollIntervalMs: settings.pollIntervalMs,
    stuckAfterMs: settings.stuckAfterMs,
    walletAddresses: [...accounts.values()].map((account) => account.address),

    pendingNonce: (address) => rpc(client.getTransactionCount({ address, blockTag: 'pending' })),

    async planTransfer(request: TransferRequest): Promise<TransferPlan> {
      const account = accountFor(request.from);
      const [market, gas] = await Promise.all([
        feeMarket(),
        rpc(
          client.estimateGas({ account: account.address, to: request.to, value: request.value }),
          request.from,
        ),
      ]);
      return { ...request, gas, ...chosen(firstBid(market, gas, settings.fees.caps)) };
    },

    async planReplacement(previous: TransferPlan): Promise<TransferPlan> {
      const market = await feeMarket();
      return {
        ...previous,
        ...chosen(replacementBid(previous, market, previous.gas, settings.fees)),
      };
    },

    async signTransfer(plan: TransferPlan, nonce: number): Promise<SignedTransfer> {
      const rawTx = await accountFor(plan.from).signTransaction({
        type: 'eip1559',
        chainId,
        nonce,
        to: plan.to,
        value: plan.value,
        gas: plan.gas,
        maxFeePerGas: plan.maxFeePerGas,
        maxPriorityFeePerGas: plan.maxPriorityFeePerGas,
      });
      return { rawTx, txHash: keccak256(rawTx) };
    },

    async broadcast(signed: SignedTransfer): Promise<BroadcastOutcome> {
      try {
        await client.sendRawTransaction({ serializedTransaction: signed.rawTx });
        return 'sent';
      } catch (error) {
        const { action } = classifyRpcError(error);
        if (action === 'sent') return 'already-known';
        if (action === 'reconcile') {
          // "Nonce too low" reads the same whether *these* bytes were mined or another
          // transaction used the nonce: only a lookup by our hash tells them apart.
          return (await findTransaction(signed.txHash)) ? 'already-known' : 'nonce-taken';
        }
        if (action === 'replace') return 'replace-needed';
        throw typed(
          error,
          await recoverTransactionAddress({
            serializedTransaction: signed.rawTx as TransactionSerializedEIP1559,
          }),
        );
      }
    },

    async observe(txHash: Hex): Promise<TransactionObservation> {
      try {
        const receipt = await client.getTransactionReceipt({ hash: txHash });
        const head = await rpc(client.getBlockNumber({ cacheTime: 0 }));
        return {
          state: 'mined',
          blockNumber: receipt.blockNumber,
          confirmations: Number(head - receipt.blockNumber + 1n),
          succeeded: receipt.status === 'success',
        };
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) throw typed(error);
      }
      return (await findTransaction(txHash)) ? { state: 'pending' } : { state: 'unknown' };
    },

    async lookupTransfer(txHash: Hex): Promise<ObservedTransfer | undefined> {
      const transaction = await findTransaction(txHash);
      if (!transaction) return undefined;
      return {
        chainId: transaction.chainId ?? chainId,
        from: getAddress(transaction.from),
        to: transaction.to ? getAddress(transaction.to) : zeroAddress,
        value: transaction.value,
        nonce: transaction.nonce,
        observation: await chain.observe(txHash),
      };
    },

    minedNonce: (address) => rpc(client.getTransactionCount({ address, blockTag: 'latest' })),

    async settledNonce(address) {
      const head = await chain.blockNumber();
      const depth = BigInt(settings.confirmations - 1);
      const blockNumber = head > depth ? head - depth : 0n;
      return rpc(client.getTransactionCount({ address, blockNumber }));
    },

    blockNumber: () => rpc(client.getBlockNumber({ cacheTime: 0 })),
  };
  return chain;
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

import {
  BaseError,
  createPublicClient,
  fallback,
  getAddress,
  http,
  keccak256,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  zeroAddress,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { UnknownChainError, UnknownWalletError } from '../../domain/errors';
import type {
  BroadcastOutcome,
  Chain,
  ChainRegistry,
  Hex,
  ObservedTransfer,
  SignedTransfer,
  TransactionObservation,
  TransferPlan,
  TransferRequest,
} from './chain';

export interface EvmChainSettings {
  chainId: number;
  rpcUrls: string[];
  hotWalletKeys: Hex[];
  confirmations: number;
  pollIntervalMs: number;
  rpcTimeoutMs: number;
}

/**
 * One viem client per chain. Retries are off in both the transports and the fallback: Temporal's
 * retry policy is the only retry layer, so every RPC call is one the quota knows about.
 */
export function createEvmChain(settings: EvmChainSettings): Chain {
  const transports = settings.rpcUrls.map((url) =>
    http(url, { retryCount: 0, timeout: settings.rpcTimeoutMs }),
  );
  const client: PublicClient = createPublicClient({
    transport: transports.length === 1 ? transports[0]! : fallback(transports, { retryCount: 0 }),
    // viem waits 4 s between polls on a chain without a known block time; we poll ourselves.
    pollingInterval: settings.pollIntervalMs,
    cacheTime: 0,
  });
  const accounts = new Map<string, PrivateKeyAccount>(
    settings.hotWalletKeys.map((key) => {
      const account = privateKeyToAccount(key);
      return [account.address.toLowerCase(), account];
    }),
  );
  const accountFor = (address: Hex): PrivateKeyAccount => {
    const account = accounts.get(address.toLowerCase());
    if (!account) throw new UnknownWalletError(settings.chainId, address);
    return account;
  };

  async function findTransaction(txHash: Hex) {
    try {
      return await client.getTransaction({ hash: txHash });
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return undefined;
      throw error;
    }
  }

  const chain: Chain = {
    chainId: settings.chainId,
    confirmations: settings.confirmations,
    pollIntervalMs: settings.pollIntervalMs,
    walletAddresses: [...accounts.values()].map((account) => account.address),

    pendingNonce: (address) => client.getTransactionCount({ address, blockTag: 'pending' }),

    async planTransfer(request: TransferRequest): Promise<TransferPlan> {
      const account = accountFor(request.from);
      const [fees, gas] = await Promise.all([
        client.estimateFeesPerGas(),
        client.estimateGas({ account: account.address, to: request.to, value: request.value }),
      ]);
      return { ...request, gas, ...fees };
    },

    async signTransfer(plan: TransferPlan, nonce: number): Promise<SignedTransfer> {
      const rawTx = await accountFor(plan.from).signTransaction({
        type: 'eip1559',
        chainId: settings.chainId,
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
        // "already known" and "nonce too low" read the same whether the node holds *our* bytes or
        // someone else used the nonce: only a lookup by our hash tells them apart.
        if (await findTransaction(signed.txHash)) return 'already-known';
        if (saysNonceTooLow(error)) return 'nonce-taken';
        throw error;
      }
    },

    async observe(txHash: Hex): Promise<TransactionObservation> {
      try {
        const receipt = await client.getTransactionReceipt({ hash: txHash });
        const head = await client.getBlockNumber({ cacheTime: 0 });
        return {
          state: 'mined',
          blockNumber: receipt.blockNumber,
          confirmations: Number(head - receipt.blockNumber + 1n),
          succeeded: receipt.status === 'success',
        };
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
      }
      return (await findTransaction(txHash)) ? { state: 'pending' } : { state: 'unknown' };
    },

    async lookupTransfer(txHash: Hex): Promise<ObservedTransfer | undefined> {
      const transaction = await findTransaction(txHash);
      if (!transaction) return undefined;
      return {
        chainId: transaction.chainId ?? settings.chainId,
        from: getAddress(transaction.from),
        to: transaction.to ? getAddress(transaction.to) : zeroAddress,
        value: transaction.value,
        nonce: transaction.nonce,
        observation: await chain.observe(txHash),
      };
    },

    minedNonce: (address) => client.getTransactionCount({ address, blockTag: 'latest' }),

    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
  };
  return chain;
}

const saysNonceTooLow = (error: unknown): boolean =>
  /nonce too low/i.test(
    error instanceof BaseError ? `${error.shortMessage} ${error.details}` : String(error),
  );

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

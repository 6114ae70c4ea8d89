import {
  createPublicClient,
  fallback,
  BaseError,
  ContractFunctionRevertedError,
  getAddress,
  hexToBigInt,
  http,
  keccak256,
  recoverTransactionAddress,
  TransactionNotFoundError,
  zeroAddress,
  type TransactionReceipt,
  type TransactionSerializedEIP1559,
} from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
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
  Treasury,
} from './chain';
import type { Hex, SignedTransfer, TransferPlan, TransferRequest } from '../domain/transfer';
import { BlockWatcher, type WatchedBlock } from './block-watcher';
import { ownChainReads, type ChainReads } from './chain-reads';
import { signChecked, type WalletSigner } from './signers/wallet-signer';
import { CodeProbe } from './code-probe';
import {
  balanceOfCall,
  deliveryProbeCode,
  erc20ReadAbi,
  judgeTransferReturn,
  tokenTransfersOf,
} from './erc20';
import { classifyRpcError, RpcErrorKind } from './evm-rpc-errors';
import { metered, type RpcGate } from './metered-transport';
import {
  cancelBid,
  firstBid,
  replacementBid,
  type FeeBid,
  type FeeChoice,
  type FeeMarket,
  type FeePolicy,
} from './fee-policy';
import type { Finality, GasPricing } from './chain-traits';

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
  /** The hot wallets, each with the key that signs for it (local, remote signer, KMS). */
  signers: readonly WalletSigner[];
  confirmations: number;
  blockTimeMs: number;
  pollIntervalMs: number;
  rpcTimeoutMs: number;
  stuckAfterMs: number;
  fees: FeePolicy;
  /** Type-2 transactions (max fee and tip), or type-0 (`gasPrice`) on a chain without EIP-1559. */
  gasPricing?: GasPricing;
  /** A hot wallet below this (wei) is low on this chain. */
  lowBalanceWei?: bigint;
  /** The chain's treasury (its signer is `treasurySigner`, not one of `signers`: it pays no intent). */
  treasury?: Treasury;
  /** Signs the treasury's top-ups, in a process that holds its key. */
  treasurySigner?: WalletSigner;
  /** When a block is final: the node's `finalized` tag (the default), or this many blocks deep. */
  finality?: Finality;
  onRpcResponse?: (event: RpcResponseEvent) => void;
  /** The provider's budget: every call of every endpoint spends from that endpoint's. */
  budget?: ChainBudget;
  /** Shares the process's own reads of head, receipts and balances with the fleet. */
  shareReads?: (chainId: number, own: ChainReads) => ChainReads;
}

export interface ChainBudget {
  gateFor(rpcUrl: string): RpcGate;
  unitsOf(method: string): number;
  /** The most units one call may cost (the budget's burst). */
  burstUnits: number;
}

/** A plain transfer to an address without code costs exactly this gas, no estimate needed. */
const plainTransferGas = 21_000n;

/** How long an address's code (or its absence) is trusted: code can appear (CREATE2, EIP-7702). */
const codeCacheMs = 10 * 60_000;

/** Blocks the watcher keeps behind the head: what a reorg can replace, twice the depth. */
export const blocksKept = (confirmations: number): number => Math.max(64, confirmations * 2);

/** A look never comes back sooner: each costs a workflow task and an activity. */
const minLookMs = 50;

/** A readiness check reads the watched head, refreshed at most this often. */
const readinessMaxAgeMs = 10_000;

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
  const { budget } = settings;
  const gates = budget ? settings.rpcUrls.map((url) => budget.gateFor(url)) : [];
  const endpoints = settings.rpcUrls.map((url, i) => {
    const endpoint = http(url, { retryCount: 0, timeout: settings.rpcTimeoutMs });
    return budget ? metered(endpoint, gates[i]!) : endpoint;
  });
  const transport = fallback(endpoints, { retryCount: 0 });
  // Each endpoint on its own, for the questions whose answer is "no endpoint has it".
  const endpointClients = endpoints.map((endpoint) =>
    createPublicClient({ transport: endpoint, cacheTime: 0 }),
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
  const signers = new Map(
    [...settings.signers, ...(settings.treasurySigner ? [settings.treasurySigner] : [])].map(
      (signer) => [signer.account.address.toLowerCase(), signer],
    ),
  );
  const signerFor = (address: Hex): WalletSigner => {
    const signer = signers.get(address.toLowerCase());
    if (!signer) throw new UnknownWalletError(chainId, address);
    return signer;
  };
  // Grows when a wallet is added at run time (addSigner): readers see the same array.
  const walletAddresses = settings.signers.map((signer) => signer.account.address);
  const gasPricing: GasPricing = settings.gasPricing ?? 'eip1559';

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

  const unitsOf = (method: string) => budget?.unitsOf(method) ?? 1;
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
      unitsOf('eth_getBlockReceipts') <= (budget?.burstUnits ?? Infinity) &&
      unitsOf('eth_getBlockReceipts') <= ours * unitsOf('eth_getTransactionReceipt'),
  });
  /**
   * How old the head may be for a look: a block, when the block time is known (the watcher reads
   * again once the next block is due); a quarter of a poll on automine.
   */
  const lookMaxAgeMs =
    settings.blockTimeMs > 0 ? settings.blockTimeMs : Math.min(250, settings.pollIntervalMs / 4);

  async function findTransaction(txHash: Hex) {
    try {
      return await client.getTransaction({ hash: txHash });
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return undefined;
      throw typed(error);
    }
  }

  async function feeMarket(): Promise<FeeMarket> {
    const { block } = await rpc(watcher.currentHead(lookMaxAgeMs));
    if (gasPricing === 'legacy') {
      // One price per gas, read once per head block: the floor and the bid, no tip (the fee
      // policy then bids it, replacements bump it, and a transaction signs it as gasPrice).
      const gasPrice = await rpc(reads.valueAt(block.hash, 'gasPrice', () => client.getGasPrice()));
      return { baseFeePerGas: gasPrice, maxFeePerGas: gasPrice, maxPriorityFeePerGas: 0n };
    }
    // The tip the node suggests, like the wallets' balances: read once per head block.
    const tip = await rpc(
      reads.valueAt(block.hash, 'tip', () => client.estimateMaxPriorityFeePerGas()),
    );
    const { baseFeePerGas } = block;
    return {
      baseFeePerGas,
      maxFeePerGas: baseFeePerGas * baseFeeHeadroom + tip,
      maxPriorityFeePerGas: tip,
    };
  }

  // The recipients of a block's time go in one probe (a quarter poll on automine).
  const codes = new CodeProbe(client, lookMaxAgeMs, codeCacheMs);

  /** Gas of a transfer: exact for a plain one to an address without code, else estimated. */
  async function gasOf(request: TransferRequest): Promise<bigint> {
    if (!(await rpc(codes.hasCode(request.to)))) return plainTransferGas;
    return rpc(
      client.estimateGas({
        account: request.from,
        to: request.to,
        value: request.value,
        ...(request.data && { data: request.data }),
      }),
      request.from,
    );
  }

  /** The node's own answer for a hash: its receipt, else whether its pool has the bytes. */
  async function observeAtNode(txHash: Hex): Promise<TransactionObservation> {
    const receipt = await rpc(watcher.receiptOf(txHash));
    if (receipt)
      return minedBy(receipt, (await rpc(watcher.currentHead(lookMaxAgeMs))).block.number);
    return (await findTransaction(txHash)) ? { state: 'pending' } : { state: 'unknown' };
  }

  /**
   * The last balance read of each wallet: good while no block since touched the wallet, up to
   * balanceRecheckMs (money can also arrive by a contract's internal transfer, which no
   * transaction's sender or recipient shows).
   */
  const balances = new Map<string, { block: WatchedBlock; wei: bigint; readAt: number }>();
  const balanceRecheckMs = Math.min(60_000, Math.max(10_000, 10 * settings.blockTimeMs));

  async function walletBalance(address: Hex): Promise<bigint> {
    const { block } = await rpc(watcher.currentHead(lookMaxAgeMs));
    const wallet = address.toLowerCase();
    const last = balances.get(wallet);
    if (
      last &&
      Date.now() - last.readAt < balanceRecheckMs &&
      watcher.untouchedSince(address, block, last.block)
    ) {
      return last.wei;
    }
    const wei = await rpc(
      reads.valueAt(block.hash, address, () =>
        client.getBalance({ address, blockNumber: block.number }),
      ),
      address,
    );
    // A read of an older head that ended later keeps the newer balance.
    if ((balances.get(wallet)?.block.number ?? -1n) <= block.number) {
      balances.set(wallet, { block, wei, readAt: Date.now() });
    }
    return wei;
  }

  const chosen = (choice: FeeChoice) => {
    if (!choice.ok) throw new FeeAboveCapError(chainId, choice.reason, settings.stuckAfterMs);
    return choice.bid;
  };

  const chain: Chain = {
    maxFeePerTransfer: settings.fees.caps.maxFeePerTransfer,
    ...(settings.lowBalanceWei !== undefined && { lowBalanceWei: settings.lowBalanceWei }),
    chainId,
    confirmations: settings.confirmations,
    firstLookInMs: () =>
      settings.blockTimeMs === 0
        ? 0
        : chain.nextLookInMs() + settings.blockTimeMs * (settings.confirmations - 1),
    headMaxAgeMs: lookMaxAgeMs,
    // Ten blocks later than it could first be deep enough (a send may wait for budget after its
    // signing; a node losing a transaction is rare); on automine, two polls.
    askNodeAfterMs:
      settings.blockTimeMs > 0
        ? settings.blockTimeMs * (settings.confirmations + 10)
        : settings.pollIntervalMs * 2,
    pollIntervalMs: settings.pollIntervalMs,
    pausedForMs: () => Math.max(0, ...gates.map((gate) => gate.pausedForMs())),

    nextLookInMs() {
      if (settings.blockTimeMs === 0) return settings.pollIntervalMs;
      // A moment after the next block is due, for it to be produced and read.
      return Math.max(minLookMs, watcher.nextBlockDueAt() - Date.now() + settings.blockTimeMs / 10);
    },
    stuckAfterMs: settings.stuckAfterMs,
    ...(settings.treasury && { treasury: settings.treasury }),
    walletAddresses,
    addSigner(signer) {
      const key = signer.account.address.toLowerCase();
      if (signers.has(key)) return false;
      signers.set(key, signer);
      walletAddresses.push(signer.account.address);
      watcher.watchWallet(signer.account.address);
      return true;
    },

    pendingNonce: (address) => rpc(client.getTransactionCount({ address, blockTag: 'pending' })),
    async finalizedBlock() {
      const finality = settings.finality ?? 'finalized';
      if (finality === 'finalized') {
        return (await rpc(client.getBlock({ blockTag: 'finalized' }))).number;
      }
      // The watched head, shared with every look: at most a look's age behind, so never early.
      const head = (await rpc(watcher.currentHead(lookMaxAgeMs))).block.number;
      return head > BigInt(finality) ? head - BigInt(finality) : 0n;
    },
    walletBalance,

    async planTransfer(request: TransferRequest): Promise<TransferPlan> {
      // A wallet this process cannot sign for is refused before any RPC call.
      signerFor(request.from);
      const [market, gas] = await Promise.all([feeMarket(), gasOf(request)]);
      return { ...request, gas, ...chosen(firstBid(market, gas, settings.fees.caps)) };
    },

    expectRecipients(addresses) {
      codes.probeNow(addresses);
    },

    async tokenInfo(token) {
      const read = <T>(functionName: 'symbol' | 'decimals') =>
        rpc(client.readContract({ address: token, abi: erc20ReadAbi, functionName }) as Promise<T>);
      const [symbol, decimals] = await Promise.all([
        read<string>('symbol'),
        read<number>('decimals'),
      ]);
      return { symbol, decimals: Number(decimals) };
    },

    async tokenBalance(token, wallet) {
      const { block } = await rpc(watcher.currentHead(lookMaxAgeMs));
      return rpc(
        reads.valueAt(block.hash, `${token}/${wallet}`, async () => {
          const { data } = await client.call({
            to: token,
            data: balanceOfCall(wallet),
            blockNumber: block.number,
          });
          return data && data !== '0x' ? hexToBigInt(data) : 0n;
        }),
        wallet,
      );
    },

    async simulatePayment(from, call) {
      try {
        const { data } = await client.call({
          account: from,
          to: call.to,
          value: call.value,
          ...(call.data && { data: call.data }),
        });
        return judgeTransferReturn(data);
      } catch (error) {
        const reason = revertReasonOf(error);
        if (reason !== undefined) return { ok: false, why: `it reverts: ${reason}` };
        throw typed(error, from);
      }
    },

    async probeDelivery(token, wallet, amount) {
      const probe = privateKeyToAddress(generatePrivateKey());
      const { data } = await rpc(
        client.call({
          to: wallet,
          stateOverride: [{ address: wallet, code: deliveryProbeCode(token, probe, amount) }],
        }),
      );
      return data && data !== '0x' ? hexToBigInt(data) : 0n;
    },

    async planReplacement(previous: TransferPlan): Promise<TransferPlan> {
      const market = await feeMarket();
      return {
        ...previous,
        ...chosen(replacementBid(previous, market, previous.gas, settings.fees)),
      };
    },

    async planCancel(wallet: Hex, attempts: readonly FeeBid[]): Promise<TransferPlan> {
      const market = await feeMarket();
      return {
        from: wallet,
        to: wallet,
        value: 0n,
        gas: plainTransferGas,
        ...chosen(cancelBid(attempts, market, plainTransferGas, settings.fees)),
      };
    },

    async signTransfer(plan: TransferPlan, nonce: number): Promise<SignedTransfer> {
      const fields = {
        chainId,
        nonce,
        to: plan.to,
        value: plan.value,
        gas: plan.gas,
        ...(plan.data && { data: plan.data }),
      };
      const rawTx = await signChecked(
        signerFor(plan.from),
        gasPricing === 'legacy'
          ? { ...fields, type: 'legacy', gasPrice: plan.maxFeePerGas }
          : {
              ...fields,
              type: 'eip1559',
              maxFeePerGas: plan.maxFeePerGas,
              maxPriorityFeePerGas: plan.maxPriorityFeePerGas,
            },
      );
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

    async observe(txHash: Hex, signedAt: Date): Promise<TransactionObservation> {
      const head = await rpc(watcher.currentHead(lookMaxAgeMs));
      const sighting = watcher.sighting(txHash, signedAt);
      if (sighting.state === 'not-mined') return { state: 'not-mined' };
      const receipt = await rpc(
        sighting.state === 'mined'
          ? watcher.receiptIn(sighting.block, txHash)
          : watcher.receiptOf(txHash),
      );
      return receipt ? minedBy(receipt, head.block.number) : { state: 'not-mined' };
    },

    observeAtNode,

    async knownToAnyEndpoint(txHash) {
      const answers = await Promise.all(
        endpointClients.map((endpoint) =>
          rpc(
            endpoint.getTransaction({ hash: txHash }).then(
              () => true,
              (error: unknown) => {
                if (error instanceof TransactionNotFoundError) return false;
                throw error;
              },
            ),
          ),
        ),
      );
      return answers.includes(true);
    },

    async lookupTransfer(txHash: Hex): Promise<ObservedTransfer | undefined> {
      const transaction = await findTransaction(txHash);
      if (!transaction) return undefined;
      return {
        chainId: transaction.chainId ?? chainId,
        from: getAddress(transaction.from),
        to: transaction.to ? getAddress(transaction.to) : zeroAddress,
        value: transaction.value,
        data: transaction.input,
        nonce: transaction.nonce,
        observation: await observeAtNode(txHash),
      };
    },

    minedNonce: (address) => rpc(client.getTransactionCount({ address, blockTag: 'latest' })),

    async settledNonce(address) {
      const head = await chain.blockNumber();
      const depth = BigInt(settings.confirmations - 1);
      const blockNumber = head > depth ? head - depth : 0n;
      return rpc(client.getTransactionCount({ address, blockNumber }));
    },

    async blockNumber(maxAgeMs = lookMaxAgeMs) {
      return (await rpc(watcher.currentHead(maxAgeMs))).block.number;
    },

    async ready() {
      await chain.blockNumber(readinessMaxAgeMs);
      return { headAgeMs: watcher.headAgeMs() };
    },
  };
  return chain;
}

/** A receipt seen with the head at `headNumber` (or later: the receipt's block counts). */
const minedBy = (receipt: TransactionReceipt, headNumber: bigint): TransactionObservation => ({
  state: 'mined',
  blockNumber: receipt.blockNumber,
  confirmations: Number(
    (headNumber > receipt.blockNumber ? headNumber : receipt.blockNumber) -
      receipt.blockNumber +
      1n,
  ),
  succeeded: receipt.status === 'success',
  gasPaid: gasPaidBy(receipt),
  transfers: tokenTransfersOf(receipt.logs),
});

/**
 * The native wei a mined transaction cost its sender: gas used × effective gas price, plus the
 * L1 data fee an OP-stack rollup's receipt names (`l1Fee`, left as the node sent it).
 */
function gasPaidBy(receipt: TransactionReceipt): bigint {
  const l1Fee = (receipt as { l1Fee?: unknown }).l1Fee;
  const dataFee =
    typeof l1Fee === 'bigint' ? l1Fee : typeof l1Fee === 'string' ? hexToBigInt(l1Fee as Hex) : 0n;
  return receipt.gasUsed * receipt.effectiveGasPrice + dataFee;
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

/**
 * The reason a call reverted with, when the node says it reverted ("execution reverted", with or
 * without an Error(string)); undefined for any other failure (the node unreachable, a timeout).
 */
function revertReasonOf(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError)
    return reverted.reason ?? 'no reason given';
  if (classifyRpcError(error).kind !== RpcErrorKind.executionReverted) return undefined;
  const said = /reverted(?: with reason)?:?\s*(.*)/i.exec(error.details || error.shortMessage)?.[1];
  return said?.split('\n')[0]?.replace(/\.$/, '').trim() || 'no reason given';
}

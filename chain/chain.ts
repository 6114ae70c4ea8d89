/**
 * What the payment steps need from a chain. EVM is the one implementation today (evm-chain.ts);
 * a chain with another replay guard (Solana blockhash, TON seqno, Sui object version) would
 * implement the same seam without touching workflows.
 */
import type { FeeFamily } from './fee-policy';
import type { TokenTransfer } from './erc20';
import type { InboundTransfer, SweepOutcome, TransactionTransfers } from './inbound-transfer';
import type { Hex, SignedTransfer, TransferPlan, TransferRequest } from '../domain/transfer';
import type { FeeBid } from './fee-policy';
import type { WalletSigner } from './signers/wallet-signer';

/**
 * What the node did with signed bytes. `nonce-taken`: the node counts our nonce as used and does
 * not know these bytes (another attempt of ours, or somebody else's transaction, used it: the
 * caller finds out which). `replace-needed`: the bytes cannot get in as signed (their fee bid is
 * below the base fee, or below a transaction holding the same nonce in the pool).
 */
export type BroadcastOutcome = 'sent' | 'already-known' | 'nonce-taken' | 'replace-needed';

export type TransactionObservation =
  /** The node does not know the bytes. */
  | { state: 'unknown' }
  /** The node's pool has them. */
  | { state: 'pending' }
  /** In no block yet, as far as the watched blocks show: the node may or may not have them. */
  | { state: 'not-mined' }
  | {
      state: 'mined';
      blockNumber: bigint;
      confirmations: number;
      succeeded: boolean;
      /** Native wei it burned: gas used × effective price, plus an L1 data fee where charged. */
      gasPaid: bigint;
      /** The ERC-20 Transfer logs of its receipt. */
      transfers: readonly TokenTransfer[];
    };

export interface Treasury {
  address: Hex;
  /** Below this (wei) the treasury itself is low: operators are told. */
  lowBalanceWei: bigint;
  /** What a top-up brings a low hot wallet back up to (wei). */
  topUpTargetWei: bigint;
  /** Tokens the hot wallets are topped up in too, from the treasury's own. */
  tokens: readonly TokenTopUp[];
}

/** A token's low mark and top-up target per hot wallet, in whole tokens (decimal text). */
export interface TokenTopUp {
  token: Hex;
  lowBalance: string;
  topUpTarget: string;
}

/** A chain's fixed facts as this process runs it: its numbers, its treasury, its wallets. */
export interface ChainSettings {
  readonly chainId: number;
  /** Blocks on top of the receipt's block (counting it) before an intent is confirmed. */
  readonly confirmations: number;
  /** How old the watched head (and the fee market read with it) may be when a step uses it. */
  readonly headMaxAgeMs: number;
  /** Not mined this long after signing: the node is asked whether it still has the bytes. */
  readonly askNodeAfterMs: number;
  /** How long to wait before looking at a pending transaction again (no block time known). */
  readonly pollIntervalMs: number;
  /** A transaction not mined this long after it was signed gets a replacement (or a gap filled). */
  readonly stuckAfterMs: number;
  /** Not mined this long after its first transaction: the tenant is told (`intent.delayed`). */
  readonly delayedAfterMs: number;
  /** `intent.delayed` notices one payment sends at most. */
  readonly delayedNoticesMax: number;
  /** Speed-ups a person may ask of one payment at most (each a replacement at its nonce). */
  readonly speedUpsMax: number;
  /** The least base fee the chain charges (wei): a payment's own ceiling below it never fits. */
  readonly baseFeeFloorPerGas: bigint;
  /** How it charges for gas (docs/chains.md, "Fee families"). */
  readonly family: FeeFamily;
  /** The most gas (limit × max fee per gas) one transfer may cost, in wei: the fee caps' bound. */
  readonly maxFeePerTransfer: bigint;
  /** A hot wallet below this (wei) is low on this chain; unset: the process's LOW_BALANCE_ETH. */
  readonly lowBalanceWei?: bigint;
  /**
   * The chain's treasury, when it has one: it tops the hot wallets up to `topUpTargetWei` once
   * they are below their low mark, and is never one of `walletAddresses`.
   */
  readonly treasury?: Treasury;
  /** The factory its tenants' deposit addresses follow from; none: no deposit addresses. */
  readonly depositFactory?: Hex;
  /** The hot wallets this process signs for; grows when one is added at run time. */
  readonly walletAddresses: readonly Hex[];
}

/**
 * What the steps do on a chain: when to look again, nonces and balances, planning, signing and
 * sending a transfer, and looking for it (one file each in chain/evm/).
 */
export interface ChainActions {
  /**
   * After a send, when a look can first find it deep enough: when the next block is due, plus
   * CONFIRMATIONS − 1 blocks; 0 on automine.
   */
  firstLookInMs(): number;
  /**
   * When the next look can see more: just after the next block is due, on a chain with a block
   * time (BLOCK_TIME_MS); the poll interval otherwise.
   */
  nextLookInMs(): number;
  /** How long the provider's Retry-After still holds every call back (0: not paused). */
  pausedForMs(): number;
  /** Takes on a wallet added at run time; false when the process already signs for it. */
  addSigner(signer: WalletSigner): boolean;
  pendingNonce(address: Hex): Promise<number>;
  /**
   * The newest block a reorg can no longer remove, as the chain's finality says: the node's
   * `finalized` block, or the head less a depth.
   */
  finalizedBlock(): Promise<bigint>;
  /**
   * A wallet's balance at the watched head block: read again when a block since the last read
   * has a transaction from or to the wallet, and at least every 10 blocks (10 s to a minute).
   */
  walletBalance(address: Hex): Promise<bigint>;
  /** Throws FeeAboveCap when the market is above the caps: the send waits, never overpays. */
  planTransfer(request: TransferRequest): Promise<TransferPlan>;
  /**
   * Recipients about to be paid (a page of a batch): what planning their transfers reads of
   * them is read now, in one call, not each at its own signing. Never throws.
   */
  expectRecipients(addresses: readonly Hex[]): void;
  /** Whether `address` holds code now: a call to an address without runs nothing. */
  hasCode(address: Hex): Promise<boolean>;
  /** An ERC-20's symbol and decimals, read from it; throws when it answers neither. */
  tokenInfo(token: Hex): Promise<{ symbol: string; decimals: number }>;
  /** What `wallet` holds of `token` in the watched head block (read once per block). */
  tokenBalance(token: Hex, wallet: Hex): Promise<bigint>;
  /**
   * The exact call, simulated from `from` at the head: accepted when it neither reverts nor
   * returns false (SafeERC20's rule), else refused with the revert reason or the false.
   */
  simulatePayment(
    from: Hex,
    call: { to: Hex; value: bigint; data?: Hex },
  ): Promise<{ ok: true } | { ok: false; why: string }>;
  /**
   * A contract call, run from `from` at the head (nothing is sent): accepted unless it reverts,
   * else refused with the decoded revert reason.
   */
  simulateCall(
    from: Hex,
    call: { to: Hex; value: bigint; data?: Hex },
  ): Promise<{ ok: true } | { ok: false; why: string }>;
  /**
   * What a transfer of `amount` of `token` from `wallet` delivers, simulated (a state override
   * runs a probe as the wallet; nothing is sent): less than `amount` for a fee-on-transfer
   * token. 0 when the wallet could not make it (too little balance, a refusal).
   */
  probeDelivery(token: Hex, wallet: Hex, amount: bigint): Promise<bigint>;
  /**
   * The same transfer with a bid that outbids `previous` by the node's replacement minimum and
   * meets the market and the bid a person `asked` for (a speed-up); throws FeeAboveCap when that
   * is above the caps.
   */
  planReplacement(previous: TransferPlan, asked?: Partial<FeeBid>): Promise<TransferPlan>;
  /**
   * A zero-value transfer from `wallet` to itself that outbids every one of `attempts` (signed at
   * one nonce) on both fee fields, under the cancel cap; throws FeeAboveCap when it cannot.
   */
  planCancel(wallet: Hex, attempts: readonly FeeBid[]): Promise<TransferPlan>;
  signTransfer(plan: TransferPlan, nonce: number): Promise<SignedTransfer>;
  /**
   * Hands the signed bytes to the node. Re-sending bytes the node already has, or already mined,
   * is success: the hash is what identifies the payment, not the node's reply.
   */
  broadcast(signed: SignedTransfer): Promise<BroadcastOutcome>;
  /**
   * Where a transaction signed at `signedAt` stands, from the blocks the process watches (one
   * head read and one receipts read per block, shared by every look): mined or not mined.
   */
  observe(txHash: Hex, signedAt: Date): Promise<TransactionObservation>;
  /** The node's own answer for one hash: mined, in its pool (pending) or unknown to it. */
  observeAtNode(txHash: Hex): Promise<TransactionObservation>;
  /**
   * Whether any configured endpoint has the transaction (in its pool or mined), each asked on
   * its own: false only when every one answered that it does not. Throws when one cannot be asked.
   */
  knownToAnyEndpoint(txHash: Hex): Promise<boolean>;
  /** The transfer a hash names, as the node has it (for an operator's claim); undefined if none. */
  lookupTransfer(txHash: Hex): Promise<ObservedTransfer | undefined>;
  /** Transactions of `address` in the head block: every nonce below it is used (until a reorg). */
  minedNonce(address: Hex): Promise<number>;
  /** Transactions of `address` mined `confirmations` deep: nonces below it are used for good. */
  settledNonce(address: Hex): Promise<number>;
  /**
   * Transfers into `addresses` mined in blocks `fromBlock`…`toBlock` (evm/deposit-reads.ts),
   * read behind every payment's call in the RPC budget's line.
   */
  inboundTransfers(
    addresses: readonly Hex[],
    fromBlock: bigint,
    toBlock: bigint,
  ): Promise<InboundTransfer[]>;
  /** One transaction's transfers as the node has them now; undefined: it has no receipt. */
  inboundOf(txHash: Hex): Promise<TransactionTransfers | undefined>;
  /** What a mined deposit sweep moved out of each address (evm/deposit-sweeps.ts). */
  sweepOutcome(txHash: Hex, factory: Hex): Promise<SweepOutcome | undefined>;
  /** What an address held of each asset (`native` or a token) at a block, read in background. */
  balancesAt(
    address: Hex,
    assets: readonly string[],
    blockNumber: bigint,
  ): Promise<Map<string, bigint>>;
  /** The head block, as watched: read again when older than `maxAgeMs` (default headMaxAgeMs). */
  blockNumber(maxAgeMs?: number): Promise<bigint>;
  /**
   * Our wallets' transactions in the blocks after `after` (without it: the head block's), the
   * head's number and base fee, from the watched head at a look's age (chain/evm/blocks-since.ts).
   */
  blocksSince(after?: bigint): Promise<{
    head: bigint;
    baseFeePerGas: bigint;
    ours: Hex[];
  }>;
  /** For the readiness probe: the watched head, read again at most every few seconds. */
  ready(): Promise<{ headAgeMs?: number }>;
}

export interface Chain extends ChainSettings, ChainActions {}

export interface ObservedTransfer extends TransferRequest {
  chainId: number;
  /** The call data (`0x` for a plain value transfer). */
  data: Hex;
  nonce: number;
  observation: TransactionObservation;
}

export interface ChainRegistry {
  /** Throws UnknownChain for a chain this process has no RPC endpoints for. */
  get(chainId: number): Chain;
  readonly chainIds: readonly number[];
}

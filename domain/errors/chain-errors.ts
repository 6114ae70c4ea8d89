import { formatEther, formatUnits } from 'viem/utils';
import { RelayerError } from './relayer-error';
import { ErrorName } from '../error-catalogue';

// What the chain or the relayer's wallets refuse or cannot do now: chains and wallets unknown,
// fees above the caps, RPC failures, funds, tokens.

/**
 * The token would not move the funds: the exact transfer, simulated from the sending wallet,
 * returned false or reverted (paused, a blocked account, …). Nothing is signed.
 */
export class TokenTransferRefusedError extends RelayerError<{
  chainId: number;
  token: string;
  wallet: string;
  why: string;
}> {
  constructor(chainId: number, token: string, wallet: string, why: string) {
    super(
      ErrorName.tokenTransferRefused,
      `token ${token} on chain ${chainId} refuses the transfer from ${wallet}: ${why}`,
      { chainId, token, wallet, why },
    );
  }
}

/**
 * The contract call, simulated from the wallet that would send it, reverts: nothing is signed
 * (the intent fails unsigned, its hold released), and `why` is the decoded revert reason.
 */
export class CallRevertedError extends RelayerError<{
  chainId: number;
  contract: string;
  wallet: string;
  why: string;
}> {
  constructor(chainId: number, contract: string, wallet: string, why: string) {
    super(
      ErrorName.callReverted,
      `the call to ${contract} on chain ${chainId} was refused before signing: simulated from ${wallet}, ${why}. Nothing was signed and the intent's hold is released; fix the call (or the contract's state) and submit it again`,
      { chainId, contract, wallet, why },
    );
  }
}

/**
 * The sending wallet holds too little of the token for this transfer on top of its transfers in
 * flight. Retryable: a confirmation or a top-up frees funds; nothing was signed.
 */
export class WalletTokenShortError extends RelayerError<{
  chainId: number;
  token: string;
  wallet: string;
  balance: string;
  needed: string;
}> {
  constructor(
    chainId: number,
    token: Omit<TokenAmount, 'amount'> & { address: string },
    wallet: string,
    balance: bigint,
    needed: bigint,
  ) {
    super(
      ErrorName.walletTokenShort,
      `wallet ${wallet} holds ${inUnits({ ...token, amount: balance })} on chain ${chainId}, ${inUnits({ ...token, amount: needed })} needed with its transfers in flight: top it up`,
      {
        chainId,
        token: token.address,
        wallet,
        balance: balance.toString(),
        needed: needed.toString(),
      },
    );
  }
}

export class UnknownChainError extends RelayerError<{ chainId: number; item?: number }> {
  /**
   * `served`: the chains the relayer has hot wallets on, when that is what was checked; `item`:
   * the batch row that names the chain.
   */
  constructor(chainId: number, served?: readonly number[], item?: number) {
    super(
      ErrorName.unknownChain,
      (item === undefined ? '' : `item ${item}: `) +
        (served === undefined
          ? `chain ${chainId} is not configured (no RPC endpoints)`
          : `chain ${chainId} is not served by this relayer: it has hot wallets on ${served.length > 0 ? `chain ${served.join(', ')}` : 'no chain yet (start a worker once)'}`),
      { chainId, ...(item !== undefined && { item }) },
    );
  }
}

export class UnknownWalletError extends RelayerError<{ chainId: number; address: string }> {
  constructor(chainId: number, address: string) {
    super(
      ErrorName.unknownWallet,
      `${address} is not a hot wallet of this relayer on chain ${chainId}`,
      { chainId, address },
    );
  }
}

/** Not an error of the payment: the send must wait for the RPC pace; the step retries then. */
export class SendPacedError extends RelayerError<{ waitMs: number }> {
  constructor(waitMs: number) {
    super(
      ErrorName.sendPaced,
      `send paced: the RPC quota allows the next send in ${waitMs} ms`,
      { waitMs },
      {
        retryAfterMs: waitMs,
      },
    );
  }
}

/** The fee market is above the operator's caps: the send waits rather than overpay. */
export class FeeAboveCapError extends RelayerError<{ chainId: number; reason: string }> {
  constructor(chainId: number, reason: string, retryAfterMs: number) {
    super(
      ErrorName.feeAboveCap,
      `chain ${chainId}: not sending now, ${reason}; the send is retried as fees fall, or raise ` +
        'MAX_FEE_PER_GAS_GWEI / MAX_PRIORITY_FEE_GWEI / MAX_FEE_PER_TRANSFER_ETH to pay more',
      { chainId, reason },
      {
        retryAfterMs,
      },
    );
  }
}

/**
 * The RPC provider did not answer usefully (rate limited, timed out, unreachable, …) on any of
 * its endpoints; `kind` is the row of the RPC error table (chain/evm-rpc-errors.ts).
 */
export class RpcUnavailableError extends RelayerError<{ chainId: number; kind: string }> {
  constructor(chainId: number, kind: string, cause: unknown) {
    super(
      ErrorName.rpcUnavailable,
      `chain ${chainId}: RPC ${kind.replaceAll('_', ' ')}: ${shortMessageOf(cause)} (retried; ` +
        "if it lasts, check RPC_URLS and the provider's quota)",
      { chainId, kind },
      { cause },
    );
  }
}

/** The sending wallet cannot pay value + gas: a person has to top it up; sends wait meanwhile. */
export class WalletUnderfundedError extends RelayerError<{ chainId: number; address: string }> {
  constructor(chainId: number, address: string, cause: unknown) {
    super(
      ErrorName.walletUnderfunded,
      `${address} on chain ${chainId} cannot pay for the transfer and its gas: top it up`,
      { chainId, address },
      { cause },
    );
  }
}

/** A token amount as a person reads it: its units and its alias. */
export interface TokenAmount {
  alias: string;
  decimals: number;
  amount: bigint;
}

const inUnits = ({ alias, decimals, amount }: TokenAmount) =>
  `${formatUnits(amount, decimals)} ${alias}`;

/**
 * No hot wallet on the chain can pay for the transfer on top of what its signed transactions
 * still take: retryable, since a confirmation or a top-up frees funds; nothing was signed.
 */
export class NoFundedWalletError extends RelayerError<{
  chainId: number;
  cost: string;
  token?: string;
  tokenAmount?: string;
}> {
  /** `cost`: value + gas × fee cap in wei; `token`: a token intent's amount, held on top. */
  constructor(chainId: number, cost: bigint, token?: TokenAmount & { address: string }) {
    const needs = [
      ...(token ? [inUnits(token)] : []),
      ...(cost > 0n
        ? [`${formatEther(cost)} ETH (${token ? 'gas' : 'value + gas'} × fee cap)`]
        : []),
    ].join(' and ');
    super(
      ErrorName.noFundedWallet,
      `no hot wallet the tenant may use on chain ${chainId} (its pool, not retired, not waiting on review) holds ${needs} on top of its transactions in flight: top one up${token ? ` (the chain's tokenTopUps move ${token.alias} from its treasury)` : ''}`,
      {
        chainId,
        cost: cost.toString(),
        ...(token && { token: token.address, tokenAmount: token.amount.toString() }),
      },
    );
  }
}

/**
 * The intent names a wallet whose lane waits on an operator (an intent of it in review holds a
 * nonce): it is not signed behind it. Retryable: the send step tries again until the decision
 * comes, or its time runs out and the intent fails unsigned.
 */
export class WalletBlockedError extends RelayerError<{
  chainId: number;
  address: string;
  blockedBy: string;
}> {
  constructor(chainId: number, address: string, blockedBy: string) {
    super(
      ErrorName.walletBlocked,
      `waiting: wallet ${address} on chain ${chainId} is blocked by intent ${blockedBy} in review (an operator resolves it: confirm, fail, retry or cancel)`,
      { chainId, address, blockedBy },
    );
  }
}

/** The intent names a wallet an operator retired after it was admitted: nothing is signed. */
export class WalletRetiredError extends RelayerError<{ chainId: number; address: string }> {
  constructor(chainId: number, address: string) {
    super(
      ErrorName.walletRetired,
      `wallet ${address} on chain ${chainId} was retired: it signs nothing new`,
      { chainId, address },
    );
  }
}

/** The node refuses the transfer as asked, for good (it would revert, its gas is impossible). */
export class TransferRejectedError extends RelayerError<{ chainId: number; kind: string }> {
  constructor(chainId: number, kind: string, cause: unknown) {
    super(
      ErrorName.transferRejected,
      `chain ${chainId} refuses the transfer (${kind.replaceAll('_', ' ')}): ${shortMessageOf(cause)}`,
      { chainId, kind },
      { cause },
    );
  }
}

const shortMessageOf = (error: unknown): string =>
  error instanceof Error
    ? ((error as { details?: string }).details ?? error.message).split('\n')[0]!
    : String(error);

/** The chain has no deposit factory: no deposit address can be handed out on it. */
export class DepositsNotConfiguredError extends RelayerError<{
  chainId: number;
  chainsWithDeposits: number[];
}> {
  /** `chainsWithDeposits`: the chains where deposits are on, for the caller to choose from. */
  constructor(chainId: number, chainsWithDeposits: readonly number[]) {
    super(
      ErrorName.depositsNotConfigured,
      `deposits are off on chain ${chainId}: ${chainsWithDeposits.length > 0 ? `chain${chainsWithDeposits.length === 1 ? '' : 's'} ${chainsWithDeposits.join(', ')} take${chainsWithDeposits.length === 1 ? 's' : ''} them` : 'no chain takes them'} (an operator turns them on with the chain's depositFactory)`,
      { chainId, chainsWithDeposits: [...chainsWithDeposits] },
    );
  }
}

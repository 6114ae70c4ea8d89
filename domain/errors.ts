import { ErrorType, notInReviewMessage } from './error-catalogue';

/**
 * The relayer's errors as classes, each with its message and details; error-catalogue.ts declares
 * each one's name, whether a retry can fix it and the API's word for it.
 */

export class RelayerError<Details extends object = Record<string, unknown>> extends Error {
  override readonly name: ErrorType;
  readonly details: Details;
  /** When set, the retry comes this late (instead of the retry policy's backoff). */
  readonly retryAfterMs?: number;

  constructor(
    name: ErrorType,
    message: string,
    details: Details,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, options);
    this.name = name;
    this.details = details;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

export interface FieldIssue {
  field: string;
  message: string;
}

export class InvalidIntentError extends RelayerError<{ issues: FieldIssue[] }> {
  constructor(issues: FieldIssue[]) {
    super(
      ErrorType.invalidIntent,
      `invalid intent: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`,
      { issues },
    );
  }
}

export class UnknownTenantError extends RelayerError<{ tenantId: string }> {
  constructor(tenantId: string) {
    super(ErrorType.unknownTenant, `unknown tenant "${tenantId}"`, { tenantId });
  }
}

export class IntentNotFoundError extends RelayerError<{ intentId: string }> {
  constructor(intentId: string) {
    super(ErrorType.intentNotFound, `intent ${intentId} does not exist`, { intentId });
  }
}

/** A tenant's key asked for another tenant's data: refused, never narrowed to its own. */
export class OtherTenantError extends RelayerError<{ tenantId: string; asked: string }> {
  constructor(tenantId: string, asked: string) {
    super(
      ErrorType.otherTenant,
      `tenantId is an operator's filter: this key lists tenant ${tenantId}'s intents only (asked for ${asked})`,
      { tenantId, asked },
    );
  }
}

export class IntentConflictError extends RelayerError<{ intentId: string }> {
  constructor(intentId: string, idempotencyKey?: string) {
    super(
      ErrorType.intentConflict,
      idempotencyKey === undefined
        ? `intent ${intentId} already exists with different contents`
        : `Idempotency-Key "${idempotencyKey}" was already used for ${intentId} with a different body`,
      { intentId },
    );
  }
}

export class InsufficientBalanceError extends RelayerError<{
  tenantId: string;
  available: string;
  requested: string;
  asset: string;
}> {
  /**
   * `shown`: the two amounts as the person who asked wrote theirs (`47.3 ETH`, `12.5 USDC`);
   * without it the message reads in base units. `details` are in base units either way.
   */
  constructor(
    tenantId: string,
    available: bigint,
    requested: bigint,
    asset = 'native',
    shown?: { available: string; requested: string },
  ) {
    const unit = asset === 'native' ? 'wei' : `base units of ${asset}`;
    const { available: have, requested: want } = shown ?? {
      available: `${available} ${unit}`,
      requested: `${requested} ${unit}`,
    };
    super(
      ErrorType.insufficientBalance,
      `tenant ${tenantId} has ${have} available, ${want} requested`,
      { tenantId, available: available.toString(), requested: requested.toString(), asset },
    );
  }
}

/** The intent names an asset that is neither `native` nor a token registered for its chain. */
export class UnknownAssetError extends RelayerError<{
  chainId: number;
  asset: string;
  item?: number;
}> {
  /** `item`: the batch item that names it. */
  constructor(chainId: number, asset: string, item?: number) {
    super(
      ErrorType.unknownAsset,
      `${item === undefined ? '' : `item ${item}: `}asset "${asset}" is not registered on chain ${chainId}: use "native" or the alias of a token an operator registered (any key lists them: GET /v1/assets, relayer assets list)`,
      { chainId, asset, ...(item !== undefined && { item }) },
    );
  }
}

/** The tenant keeps no account in the asset on the chain: a deposit of it there opens one. */
export class NoAccountError extends RelayerError<{
  tenantId: string;
  asset: string;
  chainId: number;
  item?: number;
}> {
  /** `asset`: `native`, a token's alias or its book; `item`: the batch item that names it. */
  constructor(tenantId: string, asset: string, chainId: number, item?: number) {
    super(
      ErrorType.noAccount,
      `${item === undefined ? '' : `item ${item}: `}tenant ${tenantId} has no account in ${asset} on chain ${chainId}: books are per chain; an operator opens one with a deposit there (relayer tenants deposit ${tenantId} --asset ${asset} --chain-id ${chainId} --amount …)`,
      { tenantId, asset, chainId, ...(item !== undefined && { item }) },
    );
  }
}

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
      ErrorType.tokenTransferRefused,
      `token ${token} on chain ${chainId} refuses the transfer from ${wallet}: ${why}`,
      { chainId, token, wallet, why },
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
  constructor(chainId: number, token: string, wallet: string, balance: bigint, needed: bigint) {
    super(
      ErrorType.walletTokenShort,
      `wallet ${wallet} holds ${balance} of token ${token} on chain ${chainId}, ${needed} needed with its transfers in flight: top it up`,
      { chainId, token, wallet, balance: balance.toString(), needed: needed.toString() },
    );
  }
}

export class IntentClosedError extends RelayerError<{ intentId: string; status: string }> {
  constructor(intentId: string, status: string) {
    super(ErrorType.intentClosed, `intent ${intentId} is ${status}: nothing left to do`, {
      intentId,
      status,
    });
  }
}

/** A compare-and-set lost a race: someone else moved the intent; re-reading it decides. */
export class StaleVersionError extends RelayerError<{ intentId: string; expected: number }> {
  constructor(intentId: string, expected: number) {
    super(ErrorType.staleVersion, `intent ${intentId} changed under us (expected v${expected})`, {
      intentId,
      expected,
    });
  }
}

export class UnknownChainError extends RelayerError<{ chainId: number }> {
  /** `served`: the chains the relayer has hot wallets on, when that is what was checked. */
  constructor(chainId: number, served?: readonly number[]) {
    super(
      ErrorType.unknownChain,
      served === undefined
        ? `chain ${chainId} is not configured (no RPC endpoints)`
        : `chain ${chainId} is not served by this relayer: it has hot wallets on ${served.length > 0 ? `chain ${served.join(', ')}` : 'no chain yet (start a worker once)'}`,
      { chainId },
    );
  }
}

export class UnknownWalletError extends RelayerError<{ chainId: number; address: string }> {
  constructor(chainId: number, address: string) {
    super(
      ErrorType.unknownWallet,
      `${address} is not a hot wallet of this relayer on chain ${chainId}`,
      { chainId, address },
    );
  }
}

/** Not an error of the payment: the send must wait for the RPC pace; the step retries then. */
export class SendPacedError extends RelayerError<{ waitMs: number }> {
  constructor(waitMs: number) {
    super(
      ErrorType.sendPaced,
      `send paced: the RPC quota allows the next send in ${waitMs} ms`,
      { waitMs },
      {
        retryAfterMs: waitMs,
      },
    );
  }
}

/** Admission: the tenant already has as many open intents as it may. */
export class TenantLimitReachedError extends RelayerError<{ tenantId: string; limit: number }> {
  constructor(tenantId: string, limit: number) {
    super(
      ErrorType.tenantLimitReached,
      `tenant ${tenantId} already has ${limit} open intents (its limit): submit again when one ends`,
      { tenantId, limit },
    );
  }
}

/** Admission: the relayer holds as much unsent work as it is allowed to queue. */
export class PoolFullError extends RelayerError<{ backlog: number; limit: number }> {
  constructor(backlog: number, limit: number, retryAfterMs: number) {
    super(
      ErrorType.poolFull,
      `the relayer already has ${backlog} intents waiting to be sent (limit ${limit}): try again later`,
      { backlog, limit },
      { retryAfterMs },
    );
  }
}

/** Admission: this process is shutting down and takes no new work. */
export class RelayerClosedError extends RelayerError<Record<string, never>> {
  constructor() {
    super(ErrorType.relayerClosed, 'the relayer is shutting down and takes no new intents', {});
  }
}

export class NotCancellableError extends RelayerError<{ intentId: string; status: string }> {
  constructor(intentId: string, status: string) {
    super(
      ErrorType.notCancellable,
      `intent ${intentId} is ${status}: ` +
        (status === 'signed' || status === 'confirming'
          ? 'its transaction is signed and may already be on-chain, so it can no longer be cancelled'
          : 'it has ended'),
      { intentId, status },
    );
  }
}

export class NotInReviewError extends RelayerError<{ intentId: string; status: string }> {
  constructor(intentId: string, status: string) {
    super(ErrorType.notInReview, notInReviewMessage(intentId, status), { intentId, status });
  }
}

/** What the chain says makes the operator's resolution unsafe; `problem` says which check. */
export type ReviewProblem =
  | 'transaction_not_found'
  | 'transaction_not_mined'
  | 'transaction_reverted'
  | 'token_moved_nothing'
  | 'transaction_mismatch'
  | 'transaction_taken'
  | 'transaction_mined'
  | 'transaction_may_still_land'
  | 'nothing_signed'
  | 'cancel_above_cap';

export class ReviewRefusedError extends RelayerError<{ intentId: string; problem: ReviewProblem }> {
  constructor(intentId: string, problem: ReviewProblem, message: string) {
    super(ErrorType.reviewRefused, `intent ${intentId}: ${message}`, { intentId, problem });
  }
}

export class BatchNotFoundError extends RelayerError<{ batchId: string }> {
  constructor(batchId: string) {
    super(ErrorType.batchNotFound, `batch ${batchId} does not exist`, { batchId });
  }
}

/** The fee market is above the operator's caps: the send waits rather than overpay. */
export class FeeAboveCapError extends RelayerError<{ chainId: number; reason: string }> {
  constructor(chainId: number, reason: string, retryAfterMs: number) {
    super(
      ErrorType.feeAboveCap,
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
 * its endpoints; `kind` is the row of the RPC error table (activities/chain/evm-rpc-errors.ts).
 */
export class RpcUnavailableError extends RelayerError<{ chainId: number; kind: string }> {
  constructor(chainId: number, kind: string, cause: unknown) {
    super(
      ErrorType.rpcUnavailable,
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
      ErrorType.walletUnderfunded,
      `${address} on chain ${chainId} cannot pay for the transfer and its gas: top it up`,
      { chainId, address },
      { cause },
    );
  }
}

/**
 * No hot wallet on the chain can pay for the transfer on top of what its signed transactions
 * still take: retryable, since a confirmation or a top-up frees funds; nothing was signed.
 */
export class NoFundedWalletError extends RelayerError<{
  chainId: number;
  cost: string;
  token?: string;
}> {
  /** `token`: a token intent, which needs the wallet to hold the amount of it too. */
  constructor(chainId: number, cost: bigint, token?: string) {
    super(
      ErrorType.noFundedWallet,
      `no hot wallet the tenant may use on chain ${chainId} (its pool, not retired, not waiting on review) can pay ${cost} wei (value + gas × fee cap)${token ? ` and the amount of token ${token}` : ''} on top of its transactions in flight: top one up`,
      { chainId, cost: cost.toString(), ...(token && { token }) },
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
      ErrorType.walletBlocked,
      `waiting: wallet ${address} on chain ${chainId} is blocked by intent ${blockedBy} in review (an operator resolves it: confirm, fail, retry or cancel)`,
      { chainId, address, blockedBy },
    );
  }
}

/** The intent names a wallet an operator retired after it was admitted: nothing is signed. */
export class WalletRetiredError extends RelayerError<{ chainId: number; address: string }> {
  constructor(chainId: number, address: string) {
    super(
      ErrorType.walletRetired,
      `wallet ${address} on chain ${chainId} was retired: it signs nothing new`,
      { chainId, address },
    );
  }
}

/** The node refuses the transfer as asked, for good (it would revert, its gas is impossible). */
export class TransferRejectedError extends RelayerError<{ chainId: number; kind: string }> {
  constructor(chainId: number, kind: string, cause: unknown) {
    super(
      ErrorType.transferRejected,
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

/** Who holds a wallet's key, as errors and logs name it: a key id or a signer's host, never a secret. */
interface SignerDetails {
  wallet: string;
  signer: string;
}

/** The signer could not be reached or asked to slow down: the signing step retries. */
export class SignerUnavailableError extends RelayerError<SignerDetails> {
  constructor(wallet: string, signer: string, cause: unknown) {
    super(
      ErrorType.signerUnavailable,
      `the signer of ${wallet} (${signer}) did not answer: ${describeCause(cause)}`,
      { wallet, signer },
      { cause },
    );
  }
}

/**
 * The signer answered and will not sign (access denied, key disabled or missing, wrong key type):
 * nothing was signed, and retrying cannot change that before an operator does.
 */
export class SignerRefusedError extends RelayerError<SignerDetails> {
  constructor(wallet: string, signer: string, problem: string, cause?: unknown) {
    super(
      ErrorType.signerRefused,
      `the signer of ${wallet} (${signer}) refuses to sign: ${problem}`,
      { wallet, signer },
      { cause },
    );
  }
}

/**
 * What the signer signed is not what was asked: another sender (the key is not the wallet's) or
 * other fields. Nothing of it is stored or sent.
 */
export class SignerMismatchError extends RelayerError<SignerDetails & { problem: string }> {
  constructor(wallet: string, signer: string, problem: string) {
    super(
      ErrorType.signerMismatch,
      `the signer of ${wallet} (${signer}) does not sign for it as asked: ${problem}; nothing was stored or sent: check which key that signer uses for this wallet (WALLET_SIGNERS, wallets add)`,
      { wallet, signer, problem },
    );
  }
}

const describeCause = (cause: unknown): string =>
  cause instanceof Error ? `${cause.name}: ${cause.message.split('\n')[0]}` : String(cause);

/** One delivery attempt did not get a 2xx: retried with backoff, the same webhook-id each time. */
export class WebhookUndeliveredError extends RelayerError<{
  eventId: string;
  endpointId: string;
  statusCode?: number;
}> {
  constructor(eventId: string, endpointId: string, why: string, statusCode?: number) {
    super(ErrorType.webhookUndelivered, `event ${eventId} not delivered to ${endpointId}: ${why}`, {
      eventId,
      endpointId,
      ...(statusCode !== undefined && { statusCode }),
    });
  }
}

/** The receiver answered 410 Gone: the endpoint is disabled, nothing more is sent to it. */
export class WebhookEndpointGoneError extends RelayerError<{ endpointId: string }> {
  constructor(endpointId: string) {
    super(
      ErrorType.webhookEndpointGone,
      `endpoint ${endpointId} answered 410 Gone: it is disabled (enable it again to resume)`,
      { endpointId },
    );
  }
}

/** The endpoint is disabled: its deliveries wait until it is enabled again. */
export class WebhookEndpointDisabledError extends RelayerError<{ endpointId: string }> {
  constructor(endpointId: string) {
    super(ErrorType.webhookEndpointDisabled, `endpoint ${endpointId} is disabled`, { endpointId });
  }
}

/** No WEBHOOK_SECRETS_KEY in this process: secrets can be neither sealed nor opened. */
export class WebhooksNotConfiguredError extends RelayerError<Record<string, never>> {
  constructor() {
    super(
      ErrorType.webhooksNotConfigured,
      'webhooks are off: set WEBHOOK_SECRETS_KEY (32 bytes, base64; the same in every process)',
      {},
    );
  }
}

/** An endpoint URL webhooks may not go to: not https, or an address that is not public. */
export class WebhookUrlRefusedError extends RelayerError<{ url: string; why: string }> {
  constructor(url: string, why: string) {
    super(ErrorType.webhookUrlRefused, `webhook endpoint ${url} refused: ${why}`, { url, why });
  }
}

export class WebhookEndpointNotFoundError extends RelayerError<{ endpointId: string }> {
  constructor(endpointId: string) {
    super(ErrorType.webhookEndpointNotFound, `no webhook endpoint ${endpointId}`, { endpointId });
  }
}

import type { RejectionCode } from './rejections';

/** What is declared once per error: whether a retry can fix it, and the API's word for it. */
interface ErrorEntry {
  /** False: activity retry policies list it as non-retryable; a step fails with it at once. */
  retryable: boolean;
  /** The refusal it stands for when a request causes it (absent: no request should). */
  rejection?: RejectionCode;
}

/**
 * Every error the relayer raises on purpose, by its fixed name: the Temporal failure `type`
 * (workers/typed-failures.ts sets it), so workflows and callers branch on these names, never on
 * messages or `instanceof`. The classes with their messages and details are in errors.ts; this
 * file is the part workflows need (it is in their bundle), and where each error is declared.
 */
export const errorCatalogue = {
  InvalidIntent: { retryable: false, rejection: 'invalid_request' },
  UnknownTenant: { retryable: false, rejection: 'unknown_tenant' },
  IntentNotFound: { retryable: false, rejection: 'not_found' },
  OtherTenant: { retryable: true, rejection: 'forbidden' },
  IntentConflict: { retryable: false, rejection: 'idempotency_key_reused' },
  InsufficientBalance: { retryable: false, rejection: 'insufficient_balance' },
  IntentClosed: { retryable: false },
  StaleVersion: { retryable: true },
  SendPaced: { retryable: true },
  UnknownChain: { retryable: false, rejection: 'invalid_request' },
  UnknownWallet: { retryable: false, rejection: 'invalid_request' },
  InvalidConfig: { retryable: true },
  TenantLimitReached: { retryable: true, rejection: 'tenant_limit_reached' },
  BacklogFull: { retryable: true, rejection: 'pool_full' },
  RelayerClosed: { retryable: true, rejection: 'closed' },
  NotCancellable: { retryable: true, rejection: 'not_cancellable' },
  NotInReview: { retryable: false, rejection: 'not_in_review' },
  ReviewRefused: { retryable: false, rejection: 'review_refused' },
  BatchNotFound: { retryable: true, rejection: 'not_found' },
  FeeAboveCap: { retryable: true },
  RpcUnavailable: { retryable: true },
  WalletUnderfunded: { retryable: true },
  NoFundedWallet: { retryable: true },
  WalletBlocked: { retryable: true },
  WalletRetired: { retryable: false },
  TransferRejected: { retryable: false },
  SignerUnavailable: { retryable: true },
  SignerRefused: { retryable: false },
  SignerMismatch: { retryable: false },
  UnknownAsset: { retryable: false, rejection: 'unknown_asset' },
  NoAccount: { retryable: false, rejection: 'no_account' },
  TokenTransferRefused: { retryable: false },
  WalletTokenShort: { retryable: true },
  WebhookUndelivered: { retryable: true },
  WebhookEndpointGone: { retryable: false },
  WebhookEndpointDisabled: { retryable: false },
  WebhooksNotConfigured: { retryable: false, rejection: 'webhooks_off' },
  WebhookUrlRefused: { retryable: false, rejection: 'webhook_url_refused' },
  WebhookEndpointNotFound: { retryable: false, rejection: 'not_found' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorType = keyof typeof errorCatalogue;

const errorTypes = Object.keys(errorCatalogue) as ErrorType[];

/** Each name by its camel-case key, for code to name one: `ErrorType.backlogFull` is `BacklogFull`. */
export const ErrorType = Object.fromEntries(
  errorTypes.map((type) => [type[0]!.toLowerCase() + type.slice(1), type]),
) as { readonly [Type in ErrorType as Uncapitalize<Type>]: Type };

/** Errors that retrying cannot fix; activity retry policies list them as non-retryable. */
export const nonRetryableErrorTypes: ErrorType[] = errorTypes.filter(
  (type) => !errorCatalogue[type].retryable,
);

/** The rejection a relayer error stands for; undefined for errors no request should cause. */
export const rejectionCodeOf = (type: ErrorType): RejectionCode | undefined =>
  (errorCatalogue[type] as ErrorEntry).rejection;

/** Said by the API's checks and by the workflow's update handler (an ApplicationFailure there). */
export const notInReviewMessage = (intentId: string, status: string) =>
  `intent ${intentId} is ${status}, not needs_review: only intents in review can be resolved`;

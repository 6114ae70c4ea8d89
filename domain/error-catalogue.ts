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
 * messages or `instanceof`. The classes with their messages and details are in domain/errors/;
 * this file is the part workflows need (it is in their bundle), and where each error is declared;
 * error-summaries.ts says what each means.
 */
export const errorCatalogue = {
  InvalidIntent: { retryable: false, rejection: 'invalid_request' },
  UnknownTenant: { retryable: false, rejection: 'unknown_tenant' },
  IntentNotFound: { retryable: false, rejection: 'not_found' },
  OtherTenant: { retryable: true, rejection: 'forbidden' },
  IntentConflict: { retryable: false, rejection: 'idempotency_key_reused' },
  IdempotencyKeyExpired: { retryable: false, rejection: 'idempotency_key_expired' },
  ReferenceTaken: { retryable: false, rejection: 'reference_taken' },
  IntentStillOpen: { retryable: false, rejection: 'intent_open' },
  InsufficientBalance: { retryable: false, rejection: 'insufficient_balance' },
  PolicyViolation: { retryable: false, rejection: 'policy_violation' },
  NoExclusiveWallet: { retryable: false, rejection: 'no_exclusive_wallet' },
  NotAwaitingApproval: { retryable: false, rejection: 'not_awaiting_approval' },
  ApprovalRefused: { retryable: false, rejection: 'approval_refused' },
  IntentClosed: { retryable: false },
  Paused: { retryable: false, rejection: 'paused' },
  PauseNotFound: { retryable: false, rejection: 'not_found' },
  PauseConflict: { retryable: false, rejection: 'pause_conflict' },
  ScheduleNotFound: { retryable: false, rejection: 'not_found' },
  OccurrenceRefusedForNow: { retryable: true },
  DeadlinePassed: { retryable: false },
  NotAnOccurrence: { retryable: false },
  StaleVersion: { retryable: true },
  SendPaced: { retryable: true },
  UnknownChain: { retryable: false, rejection: 'invalid_request' },
  DepositsNotConfigured: { retryable: false, rejection: 'deposits_off' },
  UnknownWallet: { retryable: false, rejection: 'invalid_request' },
  InvalidConfig: { retryable: true },
  TenantLimitReached: { retryable: true, rejection: 'tenant_limit_reached' },
  BacklogFull: { retryable: true, rejection: 'pool_full' },
  RelayerClosed: { retryable: true, rejection: 'closed' },
  NodeAnswerUnfit: { retryable: true },
  BrokenInvariant: { retryable: true },
  TimedOut: { retryable: true },
  NotCancellable: { retryable: false, rejection: 'not_cancellable' },
  CannotSpeedUp: { retryable: false, rejection: 'cannot_speed_up' },
  WorkflowUnanswered: { retryable: true, rejection: 'workflow_unanswered' },
  NotInReview: { retryable: false, rejection: 'not_in_review' },
  ReviewRefused: { retryable: false, rejection: 'review_refused' },
  BatchNotFound: { retryable: true, rejection: 'not_found' },
  ConfirmationTimeout: { retryable: false },
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
  CallReverted: { retryable: false },
  WalletTokenShort: { retryable: true },
  WebhookUndelivered: { retryable: true },
  WebhookEndpointGone: { retryable: false },
  WebhookEndpointDisabled: { retryable: false },
  WebhooksNotConfigured: { retryable: false, rejection: 'webhooks_off' },
  WebhookUrlRefused: { retryable: false, rejection: 'webhook_url_refused' },
  WebhookEndpointNotFound: { retryable: false, rejection: 'not_found' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorName = keyof typeof errorCatalogue;

const errorNames = Object.keys(errorCatalogue) as ErrorName[];

/**
 * Each name by its camel-case key, for code to name one: `ErrorName.backlogFull` is `BacklogFull`.
 */
export const ErrorName = Object.fromEntries(
  errorNames.map((type) => [type[0]!.toLowerCase() + type.slice(1), type]),
) as { readonly [Type in ErrorName as Uncapitalize<Type>]: Type };

/** Errors that retrying cannot fix; activity retry policies list them as non-retryable. */
export const nonRetryableErrorTypes: ErrorName[] = errorNames.filter(
  (type) => !errorCatalogue[type].retryable,
);

/** The rejection a relayer error stands for; undefined for errors no request should cause. */
export const rejectionCodeOf = (type: ErrorName): RejectionCode | undefined =>
  (errorCatalogue[type] as ErrorEntry).rejection;

/** Said by the approval refusals of the API and of the workflow's update validator. */
export const notAwaitingApprovalMessage = (
  subject: { kind: 'intent' | 'batch'; id: string },
  status: string,
) =>
  `${subject.kind} ${subject.id} is ${status}, not awaiting_approval: there is nothing to approve or reject`;

/** Said by the API's cancel and by the workflow's refusal of an on-chain cancel. */
export const notCancellableMessage = (intentId: string, status: string) =>
  `intent ${intentId} is ${status}: ` +
  (status === 'needs_review'
    ? `an operator resolves it there ("relayer review cancel ${intentId}" takes its nonce back)`
    : status === 'signed' || status === 'confirming'
      ? 'its transaction is signed and may already be on-chain: only a zero-value transfer at its nonce can take it back'
      : 'it has ended');

export const notInReviewMessage = (intentId: string, status: string) =>
  `intent ${intentId} is ${status}, not needs_review: only intents in review can be resolved`;

import type { RejectionCode } from './rejections';

/** What is declared once per error: whether a retry can fix it, and the API's word for it. */
interface ErrorEntry {
  /** False: activity retry policies list it as non-retryable; a step fails with it at once. */
  retryable: boolean;
  /** The refusal it stands for when a request causes it (absent: no request should). */
  rejection?: RejectionCode;
  /**
   * What it means, in a line (viem's shortMessage): each error's message says the specifics and
   * its details carry the figures; docs/operations.md lists every error with this line.
   */
  summary: string;
}

/**
 * Every error the relayer raises on purpose, by its fixed name: the Temporal failure `type`
 * (workers/typed-failures.ts sets it), so workflows and callers branch on these names, never on
 * messages or `instanceof`. The classes with their messages and details are in domain/errors/;
 * this file is the part workflows need (it is in their bundle), and where each error is declared.
 */
export const errorCatalogue = {
  InvalidIntent: {
    retryable: false,
    rejection: 'invalid_request',
    summary: 'the request is wrong; each field named',
  },
  UnknownTenant: { retryable: false, rejection: 'unknown_tenant', summary: 'no such tenant' },
  IntentNotFound: { retryable: false, rejection: 'not_found', summary: 'no such intent' },
  OtherTenant: {
    retryable: true,
    rejection: 'forbidden',
    summary: "a tenant key asked for another tenant's intents",
  },
  IntentConflict: {
    retryable: false,
    rejection: 'idempotency_key_reused',
    summary: 'the id or Idempotency-Key was used for another body',
  },
  ReferenceTaken: {
    retryable: false,
    rejection: 'reference_taken',
    summary:
      "another of the tenant's intents has this reference, and the tenant asks for unique ones",
  },
  IntentStillOpen: {
    retryable: false,
    rejection: 'intent_open',
    summary: 'asked of an intent that has not ended: only an ended intent can be redacted',
  },
  InsufficientBalance: {
    retryable: false,
    rejection: 'insufficient_balance',
    summary: "the tenant's available balance is below the amount",
  },
  PolicyViolation: {
    retryable: false,
    rejection: 'policy_violation',
    summary: "the tenant's payment policy refuses the payment; details name the rule",
  },
  NoExclusiveWallet: {
    retryable: false,
    rejection: 'no_exclusive_wallet',
    summary: 'a contract call needs a wallet no other tenant may use, and there is none',
  },
  NotAwaitingApproval: {
    retryable: false,
    rejection: 'not_awaiting_approval',
    summary: 'the intent does not await approval',
  },
  ApprovalRefused: {
    retryable: false,
    rejection: 'approval_refused',
    summary: 'the key that submitted the intent cannot approve it',
  },
  IntentClosed: {
    retryable: false,
    summary: 'the intent has ended: the step has nothing left to do',
  },
  Paused: {
    retryable: false,
    rejection: 'paused',
    summary: 'an operator paused the relayer, the tenant or the chain, refusing new intents',
  },
  PauseNotFound: {
    retryable: false,
    rejection: 'not_found',
    summary: 'no pause in force with that id',
  },
  PauseConflict: {
    retryable: false,
    rejection: 'pause_conflict',
    summary:
      'paused refusing new intents already: admitting them again is a resume and a new pause',
  },
  ScheduleNotFound: {
    retryable: false,
    rejection: 'not_found',
    summary: 'no payment schedule with that id (of this tenant)',
  },
  OccurrenceRefusedForNow: {
    retryable: true,
    summary:
      "a schedule's occurrence was refused for a reason that passes (a pause, a full tenant); tried again until its catch-up window ends",
  },
  DeadlinePassed: {
    retryable: false,
    summary: "the intent's validUntil passed: it is neither signed nor sent again",
  },
  NotAnOccurrence: {
    retryable: false,
    summary:
      'a scheduled payment started by hand, not by its schedule: it has no occurrence to pay',
  },
  StaleVersion: { retryable: true, summary: 'the intent changed under the step; tried again' },
  SendPaced: { retryable: true, summary: 'the RPC quota allows the send a moment later' },
  UnknownChain: {
    retryable: false,
    rejection: 'invalid_request',
    summary: 'the chain is not served by this relayer',
  },
  DepositsNotConfigured: {
    retryable: false,
    rejection: 'deposits_off',
    summary: 'the chain has no deposit factory (DEPOSIT_FACTORY)',
  },
  UnknownWallet: {
    retryable: false,
    rejection: 'invalid_request',
    summary: 'not a hot wallet of this relayer on the chain',
  },
  InvalidConfig: { retryable: true, summary: 'a setting is wrong, named with its variable' },
  TenantLimitReached: {
    retryable: true,
    rejection: 'tenant_limit_reached',
    summary: 'the tenant has its limit of open intents',
  },
  BacklogFull: {
    retryable: true,
    rejection: 'pool_full',
    summary: 'BACKLOG_LIMIT intents wait to be signed',
  },
  RelayerClosed: { retryable: true, rejection: 'closed', summary: 'the process is draining' },
  NodeAnswerUnfit: {
    retryable: true,
    summary: 'a node answered something that contradicts itself or its last answer',
  },
  BrokenInvariant: {
    retryable: true,
    summary: "a state the relayer's own code rules out: a defect, to report",
  },
  TimedOut: { retryable: true, summary: 'something waited on gave no answer in time' },
  NotCancellable: {
    retryable: false,
    rejection: 'not_cancellable',
    summary: 'mined, ended or in review: a cancel can no longer take it back',
  },
  WorkflowUnanswered: {
    retryable: true,
    rejection: 'workflow_unanswered',
    summary: "the intent's workflow did not take the request in time (no worker running it?)",
  },
  NotInReview: {
    retryable: false,
    rejection: 'not_in_review',
    summary: 'the intent does not wait in review',
  },
  ReviewRefused: {
    retryable: false,
    rejection: 'review_refused',
    summary: 'the chain contradicts the decision',
  },
  BatchNotFound: { retryable: true, rejection: 'not_found', summary: 'no such batch' },
  ConfirmationTimeout: {
    retryable: false,
    summary: 'sent, not confirmed within CONFIRM_TIMEOUT_MS: the intent waits in review',
  },
  FeeAboveCap: {
    retryable: true,
    summary: "the fee market is above the chain's caps: the send waits",
  },
  RpcUnavailable: { retryable: true, summary: 'no endpoint of the chain answered now' },
  WalletUnderfunded: { retryable: true, summary: 'the wallet cannot pay the transfer and its gas' },
  NoFundedWallet: { retryable: true, summary: 'no wallet the intent may use can pay it now' },
  WalletBlocked: { retryable: true, summary: 'the wallet waits behind an intent in review' },
  WalletRetired: { retryable: false, summary: 'the wallet was retired: it signs nothing new' },
  TransferRejected: { retryable: false, summary: 'the node refuses the transfer for good' },
  SignerUnavailable: { retryable: true, summary: "the wallet's signer did not answer" },
  SignerRefused: { retryable: false, summary: "the wallet's signer refuses to sign" },
  SignerMismatch: { retryable: false, summary: "the wallet's signer signed other than asked" },
  UnknownAsset: {
    retryable: false,
    rejection: 'unknown_asset',
    summary: 'no such token registered on the chain',
  },
  NoAccount: {
    retryable: false,
    rejection: 'no_account',
    summary: 'the tenant keeps no book in the asset on the chain',
  },
  TokenTransferRefused: { retryable: false, summary: 'the token refuses the transfer (simulated)' },
  CallReverted: {
    retryable: false,
    summary: 'the contract call, simulated from its wallet, reverts: nothing signed',
  },
  WalletTokenShort: { retryable: true, summary: 'the wallet holds too little of the token' },
  WebhookUndelivered: {
    retryable: true,
    summary: 'the endpoint did not take the event; sent again later',
  },
  WebhookEndpointGone: { retryable: false, summary: 'the endpoint answered 410: it is disabled' },
  WebhookEndpointDisabled: { retryable: false, summary: 'the endpoint is disabled' },
  WebhooksNotConfigured: {
    retryable: false,
    rejection: 'webhooks_off',
    summary: 'webhooks are off (no WEBHOOK_SECRETS_KEY)',
  },
  WebhookUrlRefused: {
    retryable: false,
    rejection: 'webhook_url_refused',
    summary: 'the URL is not https or resolves to a private address',
  },
  WebhookEndpointNotFound: {
    retryable: false,
    rejection: 'not_found',
    summary: 'no such webhook endpoint',
  },
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

import type { ErrorName } from './error-catalogue';

/**
 * What each error means, in a line (viem's shortMessage): its message says the specifics and its
 * details carry the figures; docs/operations.md lists every error with this line. Apart from the
 * catalogue, which the workflow bundle holds, since only the docs read these.
 */
export const errorSummaries: Record<ErrorName, string> = {
  InvalidIntent: 'the request is wrong; each field named',
  UnknownTenant: 'no such tenant',
  IntentNotFound: 'no such intent',
  OtherTenant: "a tenant key asked for another tenant's intents",
  IntentConflict: 'the id or Idempotency-Key was used for another body',
  IdempotencyKeyExpired:
    'the Idempotency-Key is older than IDEMPOTENCY_KEY_TTL_HOURS: a new payment takes a new key',
  ReferenceTaken:
    "another of the tenant's intents has this reference, and the tenant asks for unique ones",
  IntentStillOpen: 'asked of an intent that has not ended: only an ended intent can be redacted',
  InsufficientBalance: "the tenant's available balance is below the amount",
  PolicyViolation: "the tenant's payment policy refuses the payment; details name the rule",
  NoExclusiveWallet: 'a contract call needs a wallet no other tenant may use, and there is none',
  NotAwaitingApproval: 'the intent does not await approval',
  ApprovalRefused: 'the key that submitted the intent cannot approve it',
  IntentClosed: 'the intent has ended: the step has nothing left to do',
  Paused: 'an operator paused the relayer, the tenant or the chain, refusing new intents',
  PauseNotFound: 'no pause in force with that id',
  PauseConflict:
    'paused refusing new intents already: admitting them again is a resume and a new pause',
  ScheduleNotFound: 'no payment schedule with that id (of this tenant)',
  OccurrenceRefusedForNow:
    "a schedule's occurrence was refused for a reason that passes (a pause, a full tenant); tried again until its catch-up window ends",
  DeadlinePassed: "the intent's validUntil passed: it is neither signed nor sent again",
  NotAnOccurrence:
    'a scheduled payment started by hand, not by its schedule: it has no occurrence to pay',
  StaleVersion: 'the intent changed under the step; tried again',
  SendPaced: 'the RPC quota allows the send a moment later',
  UnknownChain: 'the chain is not served by this relayer',
  DepositsNotConfigured: 'the chain has no deposit factory (DEPOSIT_FACTORY)',
  UnknownWallet: 'not a hot wallet of this relayer on the chain',
  InvalidConfig: 'a setting is wrong, named with its variable',
  TenantLimitReached: 'the tenant has its limit of open intents',
  BacklogFull: 'BACKLOG_LIMIT intents wait to be signed',
  RelayerClosed: 'the process is draining',
  NodeAnswerUnfit: 'a node answered something that contradicts itself or its last answer',
  BrokenInvariant: "a state the relayer's own code rules out: a defect, to report",
  TimedOut: 'something waited on gave no answer in time',
  NotCancellable: 'mined, ended or in review: a cancel can no longer take it back',
  CannotSpeedUp:
    'not signed yet, mined, ended, in review, being cancelled, above the caps or sped up enough',
  WorkflowUnanswered:
    "the intent's workflow did not take the request in time (no worker running it?)",
  NotInReview: 'the intent does not wait in review',
  ReviewRefused: 'the chain contradicts the decision',
  BatchNotFound: 'no such batch',
  ConfirmationTimeout: 'sent, not confirmed within CONFIRM_TIMEOUT_MS: the intent waits in review',
  FeeAboveCap: "the fee market is above the chain's caps: the send waits",
  RpcUnavailable: 'no endpoint of the chain answered now',
  WalletUnderfunded: 'the wallet cannot pay the transfer and its gas',
  NoFundedWallet: 'no wallet the intent may use can pay it now',
  WalletBlocked: 'the wallet waits behind an intent in review',
  WalletRetired: 'the wallet was retired: it signs nothing new',
  TransferRejected: 'the node refuses the transfer for good',
  SignerUnavailable: "the wallet's signer did not answer",
  SignerRefused: "the wallet's signer refuses to sign",
  SignerMismatch: "the wallet's signer signed other than asked",
  UnknownAsset: 'no such token registered on the chain',
  NoAccount: 'the tenant keeps no book in the asset on the chain',
  TokenTransferRefused: 'the token refuses the transfer (simulated)',
  CallReverted: 'the contract call, simulated from its wallet, reverts: nothing signed',
  WalletTokenShort: 'the wallet holds too little of the token',
  WebhookUndelivered: 'the endpoint did not take the event; sent again later',
  WebhookEndpointGone: 'the endpoint answered 410: it is disabled',
  WebhookEndpointDisabled: 'the endpoint is disabled',
  WebhooksNotConfigured: 'webhooks are off (no WEBHOOK_SECRETS_KEY)',
  WebhookUrlRefused: 'the URL is not https or resolves to a private address',
  WebhookEndpointNotFound: 'no such webhook endpoint',
};

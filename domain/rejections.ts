import { ErrorType } from './errors';

/**
 * The words the API, the CLI and the metrics use for a request the relayer turns down. Each is
 * stable: clients branch on it (`code` in an API error body, the CLI's `--json` output and exit
 * code, the `reason` label of relayer_intents_rejected_total).
 */
export const RejectionCode = {
  invalidRequest: 'invalid_request',
  malformedBody: 'malformed_body',
  unsupportedMediaType: 'unsupported_media_type',
  bodyTooLarge: 'body_too_large',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  notFound: 'not_found',
  idempotencyKeyReused: 'idempotency_key_reused',
  insufficientBalance: 'insufficient_balance',
  unknownTenant: 'unknown_tenant',
  tenantLimitReached: 'tenant_limit_reached',
  poolFull: 'pool_full',
  closed: 'closed',
  notCancellable: 'not_cancellable',
  notInReview: 'not_in_review',
  reviewRefused: 'review_refused',
  unknownAsset: 'unknown_asset',
  noAccount: 'no_account',
  webhookUrlRefused: 'webhook_url_refused',
  webhooksOff: 'webhooks_off',
  internalError: 'internal_error',
} as const;
export type RejectionCode = (typeof RejectionCode)[keyof typeof RejectionCode];

/** What each refusal means to the person who got it (docs/api.md's table is made from this). */
export const rejectionMeaning: Record<RejectionCode, string> = {
  invalid_request: 'the request is wrong; `issues` names each field',
  malformed_body: 'the body is not JSON',
  unsupported_media_type: 'the body is not `application/json`',
  body_too_large: "the body is over the route's size limit",
  unauthorized: 'no key, or a key that is unknown, revoked or malformed',
  forbidden: "the key's role cannot do this (a tenant key on an operator's route, or the reverse)",
  not_found: "no such intent, batch or endpoint for this key (another tenant's is one too)",
  idempotency_key_reused: 'the Idempotency-Key was used for another body',
  insufficient_balance:
    "the tenant's available balance in the asset is below the amount (in the asset's units; `details` in base units)",
  unknown_tenant: 'no such tenant',
  tenant_limit_reached:
    'the tenant has its limit of open intents (an operator sets it: TENANT_MAX_IN_FLIGHT, or per tenant); retry when one ends',
  pool_full:
    '`BACKLOG_LIMIT` intents wait to be signed; `Retry-After` = the time to send them at the quota',
  closed: 'the process is draining; retry on another',
  not_cancellable: 'something was signed already: only a review can take it back',
  not_in_review: 'the intent is not in needs_review',
  review_refused: 'the chain contradicts the decision; `details.problem` says which check',
  unknown_asset: 'no such token registered on the chain',
  no_account:
    'the tenant has no account in the asset on the chain (an operator deposits there first)',
  webhook_url_refused: 'the URL is not https, or resolves to a private or loopback address',
  webhooks_off: "webhooks are off: an operator sets WEBHOOK_SECRETS_KEY (a retry won't help)",
  internal_error: 'a fault of the relayer: logged with the request id',
};

/** The rejection a relayer error stands for; undefined for errors no request should cause. */
export const rejectionCodeOf: Partial<Record<ErrorType, RejectionCode>> = {
  [ErrorType.invalidIntent]: RejectionCode.invalidRequest,
  [ErrorType.unknownTenant]: RejectionCode.unknownTenant,
  [ErrorType.intentNotFound]: RejectionCode.notFound,
  [ErrorType.otherTenant]: RejectionCode.forbidden,
  [ErrorType.batchNotFound]: RejectionCode.notFound,
  [ErrorType.intentConflict]: RejectionCode.idempotencyKeyReused,
  [ErrorType.insufficientBalance]: RejectionCode.insufficientBalance,
  [ErrorType.unknownChain]: RejectionCode.invalidRequest,
  [ErrorType.unknownWallet]: RejectionCode.invalidRequest,
  [ErrorType.tenantLimitReached]: RejectionCode.tenantLimitReached,
  [ErrorType.poolFull]: RejectionCode.poolFull,
  [ErrorType.relayerClosed]: RejectionCode.closed,
  [ErrorType.notCancellable]: RejectionCode.notCancellable,
  [ErrorType.notInReview]: RejectionCode.notInReview,
  [ErrorType.reviewRefused]: RejectionCode.reviewRefused,
  [ErrorType.unknownAsset]: RejectionCode.unknownAsset,
  [ErrorType.noAccount]: RejectionCode.noAccount,
  [ErrorType.webhookUrlRefused]: RejectionCode.webhookUrlRefused,
  [ErrorType.webhooksNotConfigured]: RejectionCode.webhooksOff,
  [ErrorType.webhookEndpointNotFound]: RejectionCode.notFound,
};

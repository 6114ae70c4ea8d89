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

/** The rejection a relayer error stands for; undefined for errors no request should cause. */
export const rejectionCodeOf: Partial<Record<ErrorType, RejectionCode>> = {
  [ErrorType.invalidIntent]: RejectionCode.invalidRequest,
  [ErrorType.unknownTenant]: RejectionCode.unknownTenant,
  [ErrorType.intentNotFound]: RejectionCode.notFound,
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

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
  scopeMissing: 'scope_missing',
  notFound: 'not_found',
  idempotencyKeyReused: 'idempotency_key_reused',
  idempotencyKeyExpired: 'idempotency_key_expired',
  referenceTaken: 'reference_taken',
  intentOpen: 'intent_open',
  insufficientBalance: 'insufficient_balance',
  policyViolation: 'policy_violation',
  notAwaitingApproval: 'not_awaiting_approval',
  approvalRefused: 'approval_refused',
  noExclusiveWallet: 'no_exclusive_wallet',
  unknownTenant: 'unknown_tenant',
  tenantLimitReached: 'tenant_limit_reached',
  rateLimited: 'rate_limited',
  poolFull: 'pool_full',
  closed: 'closed',
  paused: 'paused',
  pauseConflict: 'pause_conflict',
  notCancellable: 'not_cancellable',
  cannotSpeedUp: 'cannot_speed_up',
  workflowUnanswered: 'workflow_unanswered',
  notInReview: 'not_in_review',
  reviewRefused: 'review_refused',
  unknownAsset: 'unknown_asset',
  noAccount: 'no_account',
  webhookUrlRefused: 'webhook_url_refused',
  webhooksOff: 'webhooks_off',
  depositsOff: 'deposits_off',
  internalError: 'internal_error',
} as const;
export type RejectionCode = (typeof RejectionCode)[keyof typeof RejectionCode];

/** Each refusal's HTTP status and what it means to the person who got it. */
const rejectionCatalogue: Record<RejectionCode, { status: number; meaning: string }> = {
  invalid_request: { status: 400, meaning: 'the request is wrong; `issues` names each field' },
  malformed_body: { status: 400, meaning: 'the body is not JSON' },
  unsupported_media_type: { status: 415, meaning: 'the body is not `application/json`' },
  body_too_large: { status: 413, meaning: "the body is over the route's size limit" },
  unauthorized: {
    status: 401,
    meaning: 'no key, or a key that is unknown, revoked, malformed or expired',
  },
  forbidden: {
    status: 403,
    meaning:
      "what the key is bound to does not allow it: another tenant's data asked for with a tenant's key (or a route for the other kind of key)",
  },
  scope_missing: {
    status: 403,
    meaning: "the key's scopes do not include the one this route needs (the message names it)",
  },
  not_found: {
    status: 404,
    meaning: "no such intent, batch or endpoint for this key (another tenant's is one too)",
  },
  idempotency_key_reused: { status: 422, meaning: 'the Idempotency-Key was used for another body' },
  idempotency_key_expired: {
    status: 422,
    meaning:
      'the Idempotency-Key was first used longer ago than `IDEMPOTENCY_KEY_TTL_HOURS`: `details.usedFor` names what it named; a new payment takes a new key',
  },
  reference_taken: {
    status: 409,
    meaning:
      'the tenant asks for unique references and another of its intents has this one: `details.intentId` names it',
  },
  intent_open: {
    status: 409,
    meaning: 'the intent has not ended: what was asked waits for its end (the message says why)',
  },
  insufficient_balance: {
    status: 422,
    meaning:
      "the tenant's available balance in the asset is below the amount (in the asset's units; `details` in base units)",
  },
  policy_violation: {
    status: 422,
    meaning:
      "the tenant's payment policy refuses the payment: `details.rule` names the rule (max_per_intent, limit_24h, limit_7d, recipient_denied, recipient_not_allowed; call_not_allowed, call_value_limit, call_to_token for contract calls; approval_required for an item of a batch that needed no approval when submitted, at a threshold lowered since), `details.limit` and `details.wouldBe` the figures in base units, `details.item` the batch row refused at submit",
  },
  not_awaiting_approval: {
    status: 409,
    meaning: 'the intent does not await approval (approved, rejected or never needed it)',
  },
  approval_refused: {
    status: 403,
    meaning:
      'four eyes: the key that submitted the intent cannot approve it; another key with the `approve` scope (or an operator) can',
  },
  no_exclusive_wallet: {
    status: 422,
    meaning:
      "a contract call is sent only from a hot wallet in the tenant's own pool that no other tenant may use, and the tenant has none on the chain (or named another)",
  },
  unknown_tenant: { status: 422, meaning: 'no such tenant' },
  tenant_limit_reached: {
    status: 429,
    meaning:
      'the tenant has its limit of open intents (an operator sets it: TENANT_MAX_IN_FLIGHT, or per tenant); retry when one ends',
  },
  rate_limited: {
    status: 429,
    meaning:
      'too many requests from this key (or, before a key is checked, from this address) this minute; `Retry-After` says when to come back',
  },
  pool_full: {
    status: 503,
    meaning:
      '`BACKLOG_LIMIT` intents wait to be signed; `Retry-After` = the time to send them at the quota',
  },
  closed: { status: 503, meaning: 'the process is draining; retry on another' },
  paused: {
    status: 503,
    meaning:
      "an operator paused the relayer, the tenant or the chain and refuses new intents: `details` has the pause's note",
  },
  pause_conflict: {
    status: 409,
    meaning:
      'the subject is paused refusing new intents already: a pause that admits them is a resume and a new pause (the message says how)',
  },
  not_cancellable: {
    status: 409,
    meaning:
      'mined, ended or in review: `details.problem` says which (ended, in_review, mined, nonce_used, above_cap)',
  },
  cannot_speed_up: {
    status: 409,
    meaning:
      'no replacement can be sent for it now: `details.problem` says why (not_signed, mined, nonce_used, ended, in_review, cancelling, above_cap, past_deadline, limit_reached)',
  },
  workflow_unanswered: {
    status: 503,
    meaning:
      "the intent's workflow did not take the request within 20 s (no worker is running it): it may still be applied when one does, so read the intent before asking again",
  },
  not_in_review: { status: 409, meaning: 'the intent is not in needs_review' },
  review_refused: {
    status: 409,
    meaning: 'the chain contradicts the decision; `details.problem` says which check',
  },
  unknown_asset: { status: 422, meaning: 'no such token registered on the chain' },
  no_account: {
    status: 422,
    meaning:
      'the tenant has no account in the asset on the chain (an operator deposits there first)',
  },
  webhook_url_refused: {
    status: 422,
    meaning: 'the URL is not https, or resolves to a private or loopback address',
  },
  webhooks_off: {
    status: 503,
    meaning: "webhooks are off: an operator sets WEBHOOK_SECRETS_KEY (a retry won't help)",
  },
  deposits_off: {
    status: 503,
    meaning:
      "deposits are off on the chain: an operator sets its DEPOSIT_FACTORY (a retry won't help)",
  },
  internal_error: { status: 500, meaning: 'a fault of the relayer: logged with the request id' },
};

/** What each refusal means (docs/api.md's table is made from this). */
export const rejectionMeaning = (code: RejectionCode): string => rejectionCatalogue[code].meaning;

/** The HTTP status the API answers a refusal with. */
export const httpStatusOf = (code: RejectionCode): number => rejectionCatalogue[code].status;

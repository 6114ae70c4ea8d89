import { RejectionCode } from '../domain/rejections';

/**
 * What the CLI's exit status means, so scripts can branch without parsing output:
 * 0 done · 1 unexpected (API unreachable, internal error) · 2 bad input · 3 not found ·
 * 4 not allowed (key) · 5 conflict with the intent's state · 6 not admitted now (try later) ·
 * 7 the awaited intent ended without being confirmed · 8 the relayer is not set up for this (an
 * operator's setting, not something a retry fixes).
 */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  badInput: 2,
  notFound: 3,
  notAllowed: 4,
  conflict: 5,
  notAdmitted: 6,
  notConfirmed: 7,
  notConfigured: 8,
} as const;

export const exitCodeOf: Record<RejectionCode, number> = {
  invalid_request: ExitCode.badInput,
  malformed_body: ExitCode.badInput,
  unsupported_media_type: ExitCode.badInput,
  body_too_large: ExitCode.badInput,
  insufficient_balance: ExitCode.badInput,
  policy_violation: ExitCode.badInput,
  unknown_tenant: ExitCode.badInput,
  unknown_asset: ExitCode.badInput,
  no_account: ExitCode.badInput,
  no_exclusive_wallet: ExitCode.notConfigured,
  webhook_url_refused: ExitCode.badInput,
  webhooks_off: ExitCode.notConfigured,
  deposits_off: ExitCode.notConfigured,
  unauthorized: ExitCode.notAllowed,
  forbidden: ExitCode.notAllowed,
  scope_missing: ExitCode.notAllowed,
  not_found: ExitCode.notFound,
  idempotency_key_reused: ExitCode.conflict,
  idempotency_key_expired: ExitCode.conflict,
  reference_taken: ExitCode.conflict,
  intent_open: ExitCode.conflict,
  not_cancellable: ExitCode.conflict,
  cannot_speed_up: ExitCode.conflict,
  not_in_review: ExitCode.conflict,
  not_awaiting_approval: ExitCode.conflict,
  approval_refused: ExitCode.notAllowed,
  review_refused: ExitCode.conflict,
  tenant_limit_reached: ExitCode.notAdmitted,
  rate_limited: ExitCode.notAdmitted,
  pool_full: ExitCode.notAdmitted,
  closed: ExitCode.notAdmitted,
  paused: ExitCode.notAdmitted,
  pause_conflict: ExitCode.conflict,
  workflow_unanswered: ExitCode.notAdmitted,
  internal_error: ExitCode.unexpected,
};

/** A failure the CLI reports as one line (or one JSON object) and an exit code. */
export class CliFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export const badInput = (message: string) =>
  new CliFailure(RejectionCode.invalidRequest, message, ExitCode.badInput);

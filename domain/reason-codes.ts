import { ErrorName, errorCatalogue } from './error-catalogue';

/**
 * Why an intent is where it is, as a code a program branches on; the intent's `reason` beside it
 * is the same for a person. Stored in its own column and never parsed back from the text. Pure:
 * workflows import it. The codes here are outcomes that are not errors; a step that failed with
 * one of the relayer's errors (domain/error-catalogue.ts) has that error's name in snake case.
 */
export const ReasonCode = {
  /** Mined, reverted: no value moved. */
  reverted: 'reverted',
  /** A review cancel's zero-value transfer was mined at the intent's nonce. */
  cancelledOnChain: 'cancelled_on_chain',
  /** The token transfer succeeded but logged no transfer to the recipient. */
  tokenMovedNothing: 'token_moved_nothing',
  /** The token delivered less than the amount and is not registered as taking a fee. */
  tokenShortfall: 'token_shortfall',
  /** The token logged more to the recipient than the amount. */
  tokenOverdelivered: 'token_overdelivered',
  /** A step still failing when its time ran out (the send window, for a signed intent). */
  stepTimedOut: 'step_timed_out',
  /** A tenant's or an operator's cancel before anything was signed. */
  cancelledByCaller: 'cancelled_by_caller',
  /**
   * Confirmed, then reorged away before final, and its bytes can no longer be mined: in review,
   * its payment still captured.
   */
  reorgedAway: 'reorged_away',
  /** An operator resolved the review as failed. */
  failedByReview: 'failed_by_review',
  /** A second key (or an operator) rejected an intent awaiting approval. */
  rejectedByApprover: 'rejected_by_approver',
  /** No one approved it within APPROVAL_TTL_MS. */
  approvalExpired: 'approval_expired',
  /** A fail-fast batch stopped: one of its items failed. */
  itemFailed: 'item_failed',
  /** Temporal's cancellation of the workflow. */
  workflowCancelled: 'workflow_cancelled',
  /** Not an end: authorized, waiting unsigned for the base fee to drop under its own ceiling. */
  feeAboveCeiling: 'fee_above_ceiling',
  /** Not an end: held, waiting for a wallet whose lane an intent in review blocks. */
  walletBlocked: 'wallet_blocked',
  /**
   * A failure that was not one of the relayer's own errors (a bug's trace is in the worker log).
   */
  internal: 'internal',
  /** A reason written before codes were stored, whose text names none of these. */
  legacyUnknown: 'legacy_unknown',
} as const;

/**
 * Codes stored by earlier versions for errors the relayer no longer raises: readers may meet them.
 */
export const retiredReasonCodes = ['nonce_conflict', 'pool_full'] as const;

/** `NoFundedWallet` → `no_funded_wallet`: an error's name as its reason code. */
type SnakeCase<
  Name extends string,
  Done extends string = '',
> = Name extends `${infer Head}${infer Rest}`
  ? SnakeCase<
      Rest,
      `${Done}${Head extends Lowercase<Head> ? Head : `${Done extends '' ? '' : '_'}${Lowercase<Head>}`}`
    >
  : Done;

/** Every code an intent can carry: closed, so a program can branch on all of them. */
export type ReasonCode =
  | (typeof ReasonCode)[keyof typeof ReasonCode]
  | SnakeCase<ErrorName>
  | (typeof retiredReasonCodes)[number];

/** An intent's reason: the code to branch on and the text for a person. */
export interface Reason {
  code: ReasonCode;
  text: string;
}

/** The code of a step that failed with one of the relayer's errors (the same rule as SnakeCase). */
export const reasonCodeOfError = (type: ErrorName): ReasonCode =>
  type.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase() as SnakeCase<ErrorName>;

const isErrorType = (type: string): type is ErrorName => Object.hasOwn(errorCatalogue, type);

/**
 * The code of a failure by its Temporal type: a relayer error's own, and `internal` for anything
 * else (a TypeError in a step is a bug, not an outcome a caller can branch on).
 */
export const reasonCodeOfFailureType = (type: string | undefined | null): ReasonCode =>
  type && isErrorType(type) ? reasonCodeOfError(type) : ReasonCode.internal;

/**
 * What a held intent waits for before its first signing — a wallet to fund, a review ahead of it
 * on its wallet: said on the intent at once (its reason), retried, and its end's code if its time
 * runs out. The first two are the wallet funds /readyz warns of.
 */
export const heldIntentWaits = [
  ErrorName.noFundedWallet,
  ErrorName.walletTokenShort,
  ErrorName.walletBlocked,
] as const satisfies readonly ErrorName[];

/** Whether `code` is the reason of a held intent's wait (heldIntentWaits). */
export const isHeldIntentWait = (code: string): boolean =>
  heldIntentWaits.some((name) => reasonCodeOfError(name) === code);

/** Every code, for checks of stored rows and of the docs. */
export const reasonCodes: readonly ReasonCode[] = [
  ...new Set<ReasonCode>([
    ...Object.values(ReasonCode),
    ...(Object.keys(errorCatalogue) as ErrorName[]).map(reasonCodeOfError),
    ...retiredReasonCodes,
  ]),
];

import { pauseSubject, type Pause } from '../pause';
import { RelayerError, type FieldIssue } from './relayer-error';
import { ErrorName, notCancellableMessage } from '../error-catalogue';

// What a request or an intent's own state refuses: bad input, tenants, balances and books, limits,
// the backlog, a closed process.

export class InvalidIntentError extends RelayerError<{ issues: FieldIssue[] }> {
  /** `what`: what the request asked for, as its message names it. */
  constructor(issues: FieldIssue[], what = 'intent') {
    super(
      ErrorName.invalidIntent,
      `invalid ${what}: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`,
      { issues },
    );
  }
}

export class UnknownTenantError extends RelayerError<{ tenantId: string }> {
  constructor(tenantId: string) {
    super(ErrorName.unknownTenant, `unknown tenant "${tenantId}"`, { tenantId });
  }
}

export class IntentNotFoundError extends RelayerError<{ intentId: string }> {
  constructor(intentId: string) {
    super(ErrorName.intentNotFound, `intent ${intentId} does not exist`, { intentId });
  }
}

/** A tenant's key asked for another tenant's data: refused, never narrowed to its own. */
export class OtherTenantError extends RelayerError<{ tenantId: string; asked: string }> {
  /** `what`: what of another tenant's was asked for (absent: its intents, by the list's filter). */
  constructor(tenantId: string, asked: string, what?: string) {
    super(
      ErrorName.otherTenant,
      what === undefined
        ? `tenantId is an operator's filter: this key lists tenant ${tenantId}'s intents only (asked for ${asked})`
        : `this key is tenant ${tenantId}'s: it reads ${what} of its own tenant only (asked for ${asked}'s); an operator key reads any tenant's`,
      { tenantId, asked },
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
      ErrorName.insufficientBalance,
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
      ErrorName.unknownAsset,
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
      ErrorName.noAccount,
      `${item === undefined ? '' : `item ${item}: `}tenant ${tenantId} has no account in ${asset} on chain ${chainId}: books are per chain; an operator opens one with a deposit there (relayer tenants deposit ${tenantId} --asset ${asset} --chain-id ${chainId} --amount …)`,
      { tenantId, asset, chainId, ...(item !== undefined && { item }) },
    );
  }
}

export class IntentClosedError extends RelayerError<{ intentId: string; status: string }> {
  constructor(intentId: string, status: string) {
    super(ErrorName.intentClosed, `intent ${intentId} is ${status}: nothing left to do`, {
      intentId,
      status,
    });
  }
}

/** Admission refused: an operator's pause over the intent refuses new ones (domain/pause.ts). */
export class PausedError extends RelayerError<{ pauseId: string; note: string }> {
  constructor(pause: Pause) {
    super(
      ErrorName.paused,
      `${pauseSubject(pause)} is paused and takes no new intents (${pause.note}): submit it again once an operator resumes it`,
      { pauseId: pause.id, note: pause.note },
    );
  }
}

/** A pause asked to admit again what a pause in force refuses: that is a resume, said as one. */
export class PauseConflictError extends RelayerError<{ pauseId: string }> {
  constructor(pause: Pause) {
    super(
      ErrorName.pauseConflict,
      `${pauseSubject(pause)} is paused refusing new intents (${pause.id}: ${pause.note}): to admit them again, resume it and pause again without refuseAdmission`,
      { pauseId: pause.id },
    );
  }
}

export class PauseNotFoundError extends RelayerError<{ pauseId: string }> {
  constructor(pauseId: string) {
    super(
      ErrorName.pauseNotFound,
      `no pause in force with id ${pauseId} (GET /v1/pauses, \`relayer pauses\`, lists those in force)`,
      { pauseId },
    );
  }
}

export class ScheduleNotFoundError extends RelayerError<{ scheduleId: string }> {
  constructor(scheduleId: string) {
    super(
      ErrorName.scheduleNotFound,
      `no payment schedule ${scheduleId} (GET /v1/schedules, \`relayer schedules list\`, lists them)`,
      { scheduleId },
    );
  }
}

/**
 * A schedule's occurrence refused for a reason that passes: the step is tried again (its retry
 * policy) until the occurrence's catch-up window ends, then it is recorded missed.
 */
export class OccurrenceRefusedForNowError extends RelayerError<{
  scheduleId: string;
  occurrenceAt: string;
  retryUntil: string;
  refusal: string;
}> {
  constructor(scheduleId: string, occurrenceAt: Date, retryUntil: Date, refusal: RelayerError) {
    super(
      ErrorName.occurrenceRefusedForNow,
      `occurrence ${occurrenceAt.toISOString()} of schedule ${scheduleId} refused for now (${refusal.message}); tried again until ${retryUntil.toISOString()}`,
      {
        scheduleId,
        occurrenceAt: occurrenceAt.toISOString(),
        retryUntil: retryUntil.toISOString(),
        refusal: refusal.name,
      },
      { cause: refusal },
    );
  }
}

/** The intent's validUntil passed before the step could sign it (domain/intent-deadlines.ts). */
export class DeadlinePassedError extends RelayerError<{ intentId: string; validUntil: string }> {
  constructor(intentId: string, validUntil: Date) {
    super(
      ErrorName.deadlinePassed,
      `intent ${intentId} was valid until ${validUntil.toISOString()}: it is not signed after that`,
      { intentId, validUntil: validUntil.toISOString() },
    );
  }
}

/** A compare-and-set lost a race: someone else moved the intent; re-reading it decides. */
export class StaleVersionError extends RelayerError<{ intentId: string; expected: number }> {
  constructor(intentId: string, expected: number) {
    super(ErrorName.staleVersion, `intent ${intentId} changed under us (expected v${expected})`, {
      intentId,
      expected,
    });
  }
}

/** Admission: the tenant already has as many open intents as it may. */
export class TenantLimitReachedError extends RelayerError<{ tenantId: string; limit: number }> {
  /** `counted`: what the limit counts (its open intents, or those awaiting approval). */
  constructor(tenantId: string, limit: number, counted = 'open intents') {
    super(
      ErrorName.tenantLimitReached,
      `tenant ${tenantId} already has ${limit} ${counted} (its limit): submit again when one ends`,
      { tenantId, limit },
    );
  }
}

/** Admission: the relayer holds as much unsent work as it is allowed to queue. */
export class BacklogFullError extends RelayerError<{ backlog: number; limit: number }> {
  constructor(backlog: number, limit: number, retryAfterMs: number) {
    super(
      ErrorName.backlogFull,
      `the relayer already has ${backlog} intents waiting to be sent (limit ${limit}): try again later`,
      { backlog, limit },
      { retryAfterMs },
    );
  }
}

/** Admission: this process is shutting down and takes no new work. */
export class RelayerClosedError extends RelayerError<Record<string, never>> {
  /** `refuses`: what it no longer does (default: new intents). */
  constructor({ refuses = 'takes no new intents' }: { refuses?: string } = {}) {
    super(ErrorName.relayerClosed, `the relayer is shutting down and ${refuses}`, {});
  }
}

/**
 * Why an intent cannot be cancelled now, beyond its status: its transaction was mined, its nonce
 * used by another, or a cancel cannot outbid it within the chain's caps.
 */
export type NotCancellableProblem = 'ended' | 'in_review' | 'mined' | 'nonce_used' | 'above_cap';

export class NotCancellableError extends RelayerError<{
  intentId: string;
  status: string;
  problem: NotCancellableProblem;
}> {
  constructor(
    intentId: string,
    status: string,
    problem: NotCancellableProblem = status === 'needs_review' ? 'in_review' : 'ended',
    why?: string,
  ) {
    super(
      ErrorName.notCancellable,
      why ? `intent ${intentId} is ${status}: ${why}` : notCancellableMessage(intentId, status),
      { intentId, status, problem },
    );
  }
}

/** A request to an intent's workflow (an update) that no worker took within `waitedMs`. */
export class WorkflowUnansweredError extends RelayerError<{ intentId: string; waitedMs: number }> {
  constructor(intentId: string, waitedMs: number) {
    super(
      ErrorName.workflowUnanswered,
      `intent ${intentId}'s workflow did not take the request within ${waitedMs / 1000} s (is a worker running?): it may still be applied when one does, so read the intent before asking again`,
      { intentId, waitedMs },
    );
  }
}

export class BatchNotFoundError extends RelayerError<{ batchId: string }> {
  constructor(batchId: string) {
    super(ErrorName.batchNotFound, `batch ${batchId} does not exist`, { batchId });
  }
}

import type { CallerReferenceQuery } from '../store/caller-references';
import { IntentNotFoundError, InvalidIntentError, OtherTenantError } from '../domain/errors';
import { ErrorName } from '../domain/error-catalogue';
import { IntentStatus, type Intent } from '../domain/intent';
import { pauseOver, pauseSubject } from '../domain/pause';
import { reasonCodeOfError } from '../domain/reason-codes';
import { activePauses } from '../store/pauses';
import { auditTrail, type AuditEntry } from '../store/audit-log';
import type { Database } from '../store/database';
import { countIntentsByStatus, getIntent } from '../store/intents';
import { listIntentPage } from '../store/intent-pages';
import { listAttempts, type TransactionAttempt } from '../store/transaction-attempts';
import { canSee, type Caller } from './caller';

export type { AuditEntry, TransactionAttempt };

/** Another tenant's intent does not exist for the caller: a 404, never a hint that it exists. */
export async function findIntentFor(
  database: Database,
  caller: Caller,
  intentId: string,
): Promise<Intent> {
  const intent = await getIntent(database.kysely, intentId);
  if (!canSee(caller, intent)) throw new IntentNotFoundError(intentId);
  const [shown] = await withPauseReasons(database, [intent]);
  return shown!;
}

/**
 * Intents waiting for their permit under a pause, with the pause as their reason: its tenant
 * sees why nothing moves. Read when shown, so it is never stale once the pause ends.
 */
async function withPauseReasons(database: Database, intents: Intent[]): Promise<Intent[]> {
  const waiting = (intent: Intent) =>
    intent.status === IntentStatus.authorized && intent.reasonCode === null;
  if (!intents.some(waiting)) return intents;
  const pauses = await activePauses(database.kysely);
  return intents.map((intent) => {
    const pause = waiting(intent) ? pauseOver(pauses, intent) : undefined;
    if (!pause) return intent;
    return {
      ...intent,
      reason: `held by pause ${pause.id} of ${pauseSubject(pause)} since ${pause.pausedAt.toISOString()} (${pause.note}): it asks for its permit once resumed`,
      reasonCode: reasonCodeOfError(ErrorName.paused),
    };
  });
}

export interface IntentListRequest extends CallerReferenceQuery {
  status?: IntentStatus;
  /** Operators only: one tenant's intents (a tenant key may name only its own). */
  tenantId?: string;
  limit: number;
  cursor?: string;
}

export interface IntentList {
  intents: Intent[];
  /** Pass back to get the next page; null on the last one. */
  nextCursor: string | null;
}

export async function listIntentsFor(
  database: Database,
  caller: Caller,
  request: IntentListRequest,
): Promise<IntentList> {
  // A client that asked for another tenant's list must learn it did not get it.
  if (caller.role === 'tenant' && (request.tenantId ?? caller.tenantId) !== caller.tenantId) {
    throw new OtherTenantError(caller.tenantId, request.tenantId!);
  }
  const tenantId = caller.role === 'tenant' ? caller.tenantId : request.tenantId;
  const intents = await listIntentPage(database.kysely, {
    tenantId,
    status: request.status,
    reference: request.reference,
    metadata: request.metadata,
    after: request.cursor === undefined ? undefined : decodeCursor(request.cursor),
    limit: request.limit + 1,
  });
  const page = await withPauseReasons(database, intents.slice(0, request.limit));
  const last = page.at(-1);
  return {
    intents: page,
    nextCursor:
      intents.length > request.limit && last
        ? encodeCursor({ createdAt: last.createdAt, id: last.id })
        : null,
  };
}

/** Every transaction signed for an intent the caller may see, oldest first. */
export async function attemptsFor(
  database: Database,
  caller: Caller,
  intentId: string,
): Promise<TransactionAttempt[]> {
  const intent = await findIntentFor(database, caller, intentId);
  return listAttempts(database.kysely, intent.id);
}

/** Who did what to an intent the caller may see. */
export async function auditTrailFor(
  database: Database,
  caller: Caller,
  intentId: string,
): Promise<AuditEntry[]> {
  const intent = await findIntentFor(database, caller, intentId);
  return auditTrail(database.kysely, intent.id);
}

/** Intents by status, all tenants: what the metrics report at each scrape. */
export const intentCountsByStatus = (
  database: Database,
): Promise<Partial<Record<IntentStatus, number>>> => countIntentsByStatus(database.kysely);

const encodeCursor = (position: { createdAt: Date; id: string }): string =>
  Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString(
    'base64url',
  );

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];
    const at = new Date(String(createdAt));
    if (typeof createdAt === 'string' && typeof id === 'string' && !isNaN(at.getTime())) {
      return { createdAt: at, id };
    }
  } catch {
    // reported below
  }
  throw new InvalidIntentError([
    { field: 'cursor', message: 'is not a cursor this API returned (pass nextCursor back as is)' },
  ]);
}

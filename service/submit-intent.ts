import type { Client } from '@temporalio/client';
import type { Database } from '../activities/store/database';
import {
  findIntentByIdempotencyKey,
  insertIntent,
  sameRequest,
} from '../activities/store/intent-store';
import { tenantBalance } from '../activities/store/ledger';
import {
  InsufficientBalanceError,
  IntentConflictError,
  InvalidIntentError,
  UnknownTenantError,
} from '../domain/errors';
import type { Intent } from '../domain/intent';
import { parseNewIntent, type NewIntent } from '../domain/intent-request';
import { admit, lockAdmission, type AdmissionLimits } from './admission';
import { newIntentId } from './new-intent-id';
import { startIntentWorkflow } from './start-intent-workflow';

export interface SubmitDependencies {
  database: Database;
  client: Client;
  taskQueue: string;
  clock?: () => Date;
  /**
   * Tenant and backlog limits. The API always applies them; without them every valid intent is
   * admitted (trusted callers that pace themselves: the demo, the tests, the benchmark).
   */
  admission?: AdmissionLimits;
}

export interface SubmittedIntent {
  intent: Intent;
  workflowId: string;
  /** False when this exact intent had been submitted before: nothing new was written or started. */
  created: boolean;
}

export interface SubmitOptions {
  intentId?: string;
  /** The tenant's name for this payment: the same key with the same body is the same intent. */
  idempotencyKey?: string;
}

/** `submitParsedIntent` for a request not yet checked. */
export const submitIntent = async (
  deps: SubmitDependencies,
  request: unknown,
  options: SubmitOptions = {},
): Promise<SubmittedIntent> => submitParsedIntent(deps, parseNewIntent(request), options);

/**
 * Records a valid request as `authorized` and starts its workflow. Every check runs in the
 * transaction that inserts, before it does, so a refused intent writes nothing. Submitting the
 * same intent again (same id, or same Idempotency-Key and body) returns the stored one and never
 * runs its workflow a second time; an intent admitted before a crash gets its workflow started
 * by the retry, or else by resumeOrphanedIntents.
 */
export async function submitParsedIntent(
  deps: SubmitDependencies,
  request: NewIntent,
  options: SubmitOptions = {},
): Promise<SubmittedIntent> {
  const now = deps.clock?.() ?? new Date();
  const { database } = deps;
  const { intent, created } = await database.transaction(async (trx) => {
    await lockAdmission(database, trx);
    if (options.idempotencyKey !== undefined) {
      const existing = await findIntentByIdempotencyKey(
        trx,
        request.tenantId,
        options.idempotencyKey,
      );
      if (existing) {
        if (!sameRequest(existing, request)) {
          throw new IntentConflictError(existing.id, options.idempotencyKey);
        }
        return { intent: existing, created: false };
      }
    }
    const balance = await tenantBalance(trx, request.tenantId);
    if (!balance) throw new UnknownTenantError(request.tenantId);
    const wallet = await trx
      .selectFrom('wallets')
      .select('address')
      .where('chain_id', '=', request.chainId)
      .where('address', '=', request.from)
      .executeTakeFirst();
    if (!wallet) {
      throw new InvalidIntentError([
        {
          field: 'from',
          message: `${request.from} is not a hot wallet of the relayer on chain ${request.chainId}`,
        },
      ]);
    }
    // Advisory: concurrent intents may still outrun the balance; the hold step is the authority.
    if (balance.available < request.amount) {
      throw new InsufficientBalanceError(request.tenantId, balance.available, request.amount);
    }
    if (deps.admission) await admit(trx, request.tenantId, deps.admission);
    return insertIntent(
      trx,
      options.intentId ?? newIntentId(now.getTime()),
      request,
      now,
      options.idempotencyKey,
    );
  });
  const workflowId = await startIntentWorkflow(deps.client, deps.taskQueue, intent);
  return { intent, workflowId, created };
}

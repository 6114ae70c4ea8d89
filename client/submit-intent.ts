import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Database } from '../activities/store/database';
import { insertIntent } from '../activities/store/intent-store';
import { tenantBalance } from '../activities/store/ledger';
import { InsufficientBalanceError, InvalidIntentError, UnknownTenantError } from '../domain/errors';
import type { Intent } from '../domain/intent';
import { parseNewIntent } from '../domain/intent-request';
import { paymentIntentWorkflowId } from '../domain/workflow-ids';
import type { paymentIntent } from '../workflows';
import { intentStatusKey, tenantIdKey } from '../workflows/search-attributes';
import { newIntentId } from './new-intent-id';

export interface SubmitDependencies {
  database: Database;
  client: Client;
  taskQueue: string;
  clock?: () => Date;
}

export interface SubmittedIntent {
  intent: Intent;
  workflowId: string;
  /** False when this exact intent had been submitted before: nothing new was written or started. */
  created: boolean;
}

/**
 * Validates a request, records it as `authorized` and starts its workflow. Every check runs before
 * the first write, so bad input writes nothing. Submitting the same intent id again is a no-op that
 * returns the stored intent, and its workflow is never run a second time.
 */
export async function submitIntent(
  deps: SubmitDependencies,
  request: unknown,
  options: { intentId?: string } = {},
): Promise<SubmittedIntent> {
  const now = deps.clock?.() ?? new Date();
  const parsed = parseNewIntent(request);
  const db = deps.database.kysely;
  const balance = await tenantBalance(db, parsed.tenantId);
  if (!balance) throw new UnknownTenantError(parsed.tenantId);
  const wallet = await db
    .selectFrom('wallets')
    .select('address')
    .where('chain_id', '=', parsed.chainId)
    .where('address', '=', parsed.from)
    .executeTakeFirst();
  if (!wallet) {
    throw new InvalidIntentError([
      {
        field: 'from',
        message: `${parsed.from} is not a hot wallet of the relayer on chain ${parsed.chainId}`,
      },
    ]);
  }
  // Advisory: concurrent intents may still outrun the balance; the hold step is the authority.
  if (balance.available < parsed.amount) {
    throw new InsufficientBalanceError(parsed.tenantId, balance.available, parsed.amount);
  }

  const { intent, created } = await insertIntent(
    db,
    options.intentId ?? newIntentId(),
    parsed,
    now,
  );
  const workflowId = paymentIntentWorkflowId(intent.id);
  try {
    await deps.client.workflow.start<typeof paymentIntent>('paymentIntent', {
      taskQueue: deps.taskQueue,
      workflowId,
      args: [{ intentId: intent.id }],
      // An intent's workflow runs once: a running one is joined, a finished one is never re-run.
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: intentStatusKey, value: intent.status },
        { key: tenantIdKey, value: intent.tenantId },
      ],
      memo: {
        amountWei: intent.amount.toString(),
        from: intent.from,
        to: intent.to,
        chainId: intent.chainId,
      },
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return { intent, workflowId, created };
}

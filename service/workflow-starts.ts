import type { Client } from '@temporalio/client';
import { startBatchWorkflow, type BatchToStart } from '../client/batch-workflows';
import { startIntentWorkflow } from '../client/intent-workflows';
import type { Intent } from '../domain/intent';
import type { IntentTimings } from '../domain/intent-timings';
import type { Database } from '../store/database';
import { fairnessWeightOf } from '../store/tenants';

/** What starting a tenant's workflow needs: the tenant's weight is read from the books. */
export interface WorkflowStarts {
  database: Database;
  client: Client;
  taskQueue: string;
  /** What new intents start with (the process's settings). */
  timings?: IntentTimings;
}

type IntentStartOptions = Omit<
  NonNullable<Parameters<typeof startIntentWorkflow>[3]>,
  'timings' | 'fairnessWeight'
>;

/**
 * Starts (or joins) an intent's workflow carrying its tenant's fairness weight as it is now: the
 * server keeps no weight per key, so each start says it (one read of the tenant's row).
 */
export async function startIntentOf(
  deps: WorkflowStarts,
  intent: Intent,
  options: IntentStartOptions = {},
): Promise<string> {
  const fairnessWeight = await fairnessWeightOf(deps.database.kysely, intent.tenantId);
  return startIntentWorkflow(deps.client, deps.taskQueue, intent, {
    ...options,
    timings: deps.timings,
    fairnessWeight,
  });
}

/** Starts (or joins) a batch's workflow, as startIntentOf; its items inherit the weight. */
export async function startBatchOf(deps: WorkflowStarts, batch: BatchToStart): Promise<void> {
  const fairnessWeight = await fairnessWeightOf(deps.database.kysely, batch.tenantId);
  await startBatchWorkflow(deps.client, deps.taskQueue, batch, deps.timings, fairnessWeight);
}

import type { Client } from '@temporalio/client';
import type { Database } from '../activities/store/database';
import { findBatch } from '../activities/store/batch-store';
import { getIntent } from '../activities/store/intent-store';
import { IntentStatus } from '../domain/intent';
import { startIntentWorkflow } from './start-intent-workflow';
import { startBatchWorkflow } from './submit-batch';

/**
 * An intent is inserted, then its workflow started: a crash in between leaves it `authorized`
 * with no workflow, holding a tenant slot. Starting the workflow of every intent that has been
 * authorized for a while closes that gap; for the ones whose workflow runs, it is a no-op.
 */
export async function resumeOrphanedIntents(
  database: Database,
  client: Client,
  taskQueue: string,
  options: { olderThanMs: number; now?: Date },
): Promise<number> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - options.olderThanMs);
  const rows = await database.kysely
    .selectFrom('intents')
    .select('id')
    .where('status', '=', IntentStatus.authorized)
    .where('created_at', '<=', cutoff.toISOString())
    // A batch item's workflow is started by its batch, which also survives crashes.
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('batch_items')
            .select('intent_id')
            .whereRef('batch_items.intent_id', '=', 'intents.id'),
        ),
      ),
    )
    .limit(1000)
    .execute();
  for (const { id } of rows) {
    await startIntentWorkflow(client, taskQueue, await getIntent(database.kysely, id));
  }
  return rows.length;
}

/** The same gap for batches: recorded, but the process died before starting their workflow. */
export async function resumeOrphanedBatches(
  database: Database,
  client: Client,
  taskQueue: string,
  options: { olderThanMs: number; now?: Date },
): Promise<number> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - options.olderThanMs);
  const rows = await database.kysely
    .selectFrom('batches')
    .select('id')
    .where('status', '=', 'running')
    .where('created_at', '<=', cutoff.toISOString())
    .limit(1000)
    .execute();
  for (const { id } of rows) {
    const batch = await findBatch(database.kysely, { id });
    if (batch) await startBatchWorkflow(client, taskQueue, batch);
  }
  return rows.length;
}

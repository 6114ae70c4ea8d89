import type { Client } from '@temporalio/client';
import type { Database } from '../store/database';
import { runningBatchesBefore } from '../store/batches';
import { authorizedIntentsBefore } from '../store/intents';
import { startIntentWorkflow } from '../client/intent-workflows';
import { startBatchWorkflow } from '../service/submit-batch';

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
  const orphans = await authorizedIntentsBefore(database.kysely, cutoffOf(options));
  for (const intent of orphans) await startIntentWorkflow(client, taskQueue, intent);
  return orphans.length;
}

/** The same gap for batches: recorded, but the process died before starting their workflow. */
export async function resumeOrphanedBatches(
  database: Database,
  client: Client,
  taskQueue: string,
  options: { olderThanMs: number; now?: Date },
): Promise<number> {
  const orphans = await runningBatchesBefore(database.kysely, cutoffOf(options));
  for (const batch of orphans) await startBatchWorkflow(client, taskQueue, batch);
  return orphans.length;
}

const cutoffOf = (options: { olderThanMs: number; now?: Date }): Date =>
  new Date((options.now ?? new Date()).getTime() - options.olderThanMs);

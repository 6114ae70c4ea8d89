import type { Client } from '@temporalio/client';
import { tellWebhookEndpoint } from '../client/webhook-workflows';
import type { Database } from '../store/database';
import { endpointsToTell, markTold } from '../store/webhook-deliveries';
import type { WebhookDeliveryInput } from '../workflows';

/** Pending this long past its due time, an endpoint's workflow may be gone: told again. */
const overdueMs = 120_000;

/**
 * The outbox's sweep, in every worker process: every `everyMs`, each endpoint with events the
 * steps stored since its workflow was last told (or with a delivery long overdue) gets word,
 * its workflow started if it is not running; then those events are marked told. Durable through
 * any crash: a stored event stays pending until it is delivered, and a worker that dies between
 * the word and the mark just tells again. Several workers telling one endpoint do no harm.
 */
export function startWebhookDispatch(options: {
  database: Database;
  client: Client;
  taskQueue: string;
  everyMs: number;
  delivery: Omit<WebhookDeliveryInput, 'endpointId'>;
}): { stop(): Promise<void> } {
  const { database, client, taskQueue, delivery } = options;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const sweep = async () => {
    const now = new Date();
    const overdueBefore = new Date(now.getTime() - overdueMs);
    for (const endpointId of await endpointsToTell(database.kysely, overdueBefore, 100)) {
      if (stopped) return;
      await tellWebhookEndpoint(client, taskQueue, { ...delivery, endpointId });
      await markTold(database.kysely, endpointId, now);
    }
  };
  const timer = setInterval(() => {
    // One sweep at a time; a failed one (Temporal or the database away) is just the next one's.
    running = running.then(() => (stopped ? undefined : sweep().catch(() => undefined)));
  }, options.everyMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

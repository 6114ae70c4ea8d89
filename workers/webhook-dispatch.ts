import type { Client } from '@temporalio/client';
import { tellWebhookEndpoint } from '../client/webhook-workflows';
import type { Database } from '../store/database';
import { endpointsToTell, markTold } from '../store/webhook-deliveries';
import type { WebhookDeliveryInput } from '../workflows';
import { pacedSweeps, type PacedSweeps } from './paced-sweeps';

/** Pending this long past its due time, an endpoint's workflow may be gone: told again. */
const overdueMs = 120_000;

/**
 * The longest gap between sweeps of an idle process: events this process's steps did not write
 * (an operator's redelivery or re-enabled endpoint, through the API) wait at most this long.
 */
export const idleSweepMs = 5_000;

export type WebhookDispatch = PacedSweeps;

/**
 * The outbox's sweep, in every worker process: each endpoint with events stored since its
 * workflow was last told (or with a delivery long overdue) gets word, its workflow started if it
 * is not running; then those events are marked told. Driven by work: while steps end here (they
 * store the events: `nudge`) or a sweep finds endpoints to tell, sweeps come every `everyMs`;
 * with nothing to do the gap grows to idleSweepMs, so an idle fleet does not poll its database
 * every half second. Durable through any crash: a stored event stays pending until it is
 * delivered, and a worker that dies between the word and the mark just tells again. Several
 * workers telling one endpoint do no harm.
 */
export function startWebhookDispatch(options: {
  database: Database;
  client: Client;
  taskQueue: string;
  everyMs: number;
  delivery: Omit<WebhookDeliveryInput, 'endpointId' | 'pumpTaskQueue'>;
}): WebhookDispatch {
  const { database, client, taskQueue, delivery, everyMs } = options;
  let stopped = false;
  /** How many endpoints it told. */
  const sweep = async (): Promise<number> => {
    const now = new Date();
    const overdueBefore = new Date(now.getTime() - overdueMs);
    let told = 0;
    for (const endpointId of await endpointsToTell(database.kysely, overdueBefore, 100)) {
      if (stopped) break;
      await tellWebhookEndpoint(client, taskQueue, { ...delivery, endpointId });
      await markTold(database.kysely, endpointId, now);
      told++;
    }
    return told;
  };
  const sweeps = pacedSweeps(sweep, { everyMs, longestGapMs: Math.max(everyMs, idleSweepMs) });
  return {
    nudge: sweeps.nudge,
    async stop() {
      stopped = true;
      await sweeps.stop();
    },
  };
}

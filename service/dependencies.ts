import type { Client } from '@temporalio/client';
import type { ChainRegistry } from '../chain/chain';
import type { AdmissionLimits } from '../operations/admission';
import type { Database } from '../store/database';
import type { WebhookSettings } from '../webhooks/settings';
import type { IntentTimings } from '../domain/intent-timings';

/**
 * What the service layer works with, as the API process hands it in: the books, Temporal, the
 * chains (review decisions are checked on-chain) and the admission limits.
 */
export interface ServiceDependencies {
  database: Database;
  client: Client;
  chains: ChainRegistry;
  taskQueue: string;
  admission: AdmissionLimits;
  /** A hot wallet below this balance (wei) is reported low. */
  lowBalanceWei?: bigint;
  /** How webhook endpoints are registered (WEBHOOK_* settings); none: webhooks are off. */
  webhooks?: WebhookSettings;
  /** The workers run in this process too (eager workflow start; see startIntentWorkflow). */
  eagerStart?: boolean;
  /** The send window and confirmation timeout new intents start with (the process's settings). */
  timings?: IntentTimings;
  clock?: () => Date;
}

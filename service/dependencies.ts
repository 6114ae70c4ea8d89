import type { Client } from '@temporalio/client';
import type { ChainRegistry } from '../chain/chain';
import type { AdmissionLimits } from '../operations/admission';
import type { Database } from '../store/database';

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
  /** The workers run in this process too (eager workflow start; see startIntentWorkflow). */
  eagerStart?: boolean;
  clock?: () => Date;
}

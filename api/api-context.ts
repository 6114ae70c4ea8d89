import type { Client } from '@temporalio/client';
import type { Registry } from 'prom-client';
import type { ChainRegistry } from '../activities/chain/chain';
import type { Database } from '../activities/store/database';
import type { AdmissionLimits } from '../service/admission';
import type { ApiMetrics } from './api-metrics';

export interface ApiDependencies {
  database: Database;
  client: Client;
  chains: ChainRegistry;
  taskQueue: string;
  admission: AdmissionLimits;
  registry: Registry;
  clock?: () => Date;
}

/** What every route plugin is handed. */
export interface ApiContext {
  deps: ApiDependencies;
  metrics: ApiMetrics;
  /** True once the process started shutting down: no new intents. */
  isClosing(): boolean;
}

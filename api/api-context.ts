import type { Client } from '@temporalio/client';
import type { Registry } from 'prom-client';
import type { ChainRegistry } from '../chain/chain';
import type { Database } from '../store/database';
import type { AdmissionLimits } from '../operations/admission';
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

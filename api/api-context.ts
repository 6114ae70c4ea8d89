import type { Registry } from 'prom-client';
import type { ServiceDependencies } from '../service/dependencies';
import type { ApiMetrics } from './api-metrics';
import type { RequestLimits } from './request-limits';

/** The service layer's parts, and where this process's metrics are registered. */
export interface ApiDependencies extends ServiceDependencies {
  registry: Registry;
  /** Requests per key and per address (API_REQUESTS_PER_*); none: not limited. */
  requestLimits?: RequestLimits;
  /** Traces are on (workers/tracing.ts): requests' spans are named by route, logs carry ids. */
  traced?: boolean;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For names the client (hops, or addresses). */
  trustProxy?: number | readonly string[];
}

/** What every route plugin is handed. */
export interface ApiContext {
  deps: ApiDependencies;
  metrics: ApiMetrics;
  /** True once the process started shutting down: no new intents. */
  isClosing(): boolean;
}

import { z } from 'zod';
import { crashPoints } from '../../activities/failpoints';
import { integer, optional, crashPlan, setting, trustedProxies } from './parsers';

/** The process itself: ports, admission limits, logs, the fault tests' switches, sweeps, drain. */
export const processSettings = {
  metricsPort: setting({
    env: 'METRICS_PORT',
    fallback: '',
    doc: 'Serve Prometheus metrics on this port at /metrics; unset: no metrics server',
    parse: optional(integer(1, 65535)),
  }),
  apiPort: setting({
    env: 'API_PORT',
    fallback: '',
    requiredBy: 'api',
    doc: 'Port of the HTTP API (and its /metrics, /openapi.json), in a process that serves it',
    parse: optional(integer(1, 65535)),
  }),
  apiHost: setting({
    env: 'API_HOST',
    fallback: '127.0.0.1',
    doc: 'Interface the API listens on (0.0.0.0 in a container)',
    parse: z.string().min(1),
  }),
  trustProxy: setting({
    env: 'TRUST_PROXY',
    fallback: '',
    doc: 'The proxies in front of the API (load balancers) whose X-Forwarded-For is believed: addresses or CIDRs, comma-separated, or the number of hops; unset: none, and the per-address limit and the logs see the connecting address',
    parse: optional(trustedProxies),
  }),
  tenantMaxInFlight: setting({
    env: 'TENANT_MAX_IN_FLIGHT',
    fallback: '2',
    doc: "Open intents per tenant when the tenant's own limit is unset (429 tenant_limit_reached)",
    parse: integer(1, 1_000_000),
  }),
  approvalMaxWaiting: setting({
    env: 'APPROVAL_MAX_WAITING',
    fallback: '100',
    doc: 'Intents per tenant awaiting approval at once (they do not count against its open-intent limit; 429 tenant_limit_reached beyond)',
    parse: integer(1, 1_000_000),
  }),
  apiRequestsPerKeyPerMinute: setting({
    env: 'API_REQUESTS_PER_KEY_PER_MINUTE',
    fallback: '6000',
    doc: 'Requests one API key may make a minute, shared by every API process through Redis (REDIS_URL; else counted per process), before 429 rate_limited',
    parse: integer(1, 10_000_000),
  }),
  apiRequestsPerIpPerMinute: setting({
    env: 'API_REQUESTS_PER_IP_PER_MINUTE',
    fallback: '12000',
    doc: 'Requests one client address may make a minute before its key is even looked up (so invalid keys cannot flood the database), before 429 rate_limited',
    parse: integer(1, 10_000_000),
  }),
  idempotencyKeyTtlHours: setting({
    env: 'IDEMPOTENCY_KEY_TTL_HOURS',
    fallback: '8760',
    doc: 'How long an Idempotency-Key names its intent or batch: the same key later is refused (422 idempotency_key_expired) instead of paying again; a year by default',
    parse: integer(1, 87_600),
  }),
  backlogLimit: setting({
    env: 'BACKLOG_LIMIT',
    fallback: '100',
    doc: 'Intents accepted but not yet signed, all tenants, before submits get 503 pool_full',
    parse: integer(1, 10_000_000),
  }),
  temporalMetricsPort: setting({
    env: 'TEMPORAL_METRICS_PORT',
    fallback: '',
    doc: "Serve the Temporal SDK's own worker metrics (Prometheus) on this port; unset: off",
    parse: optional(integer(1, 65535)),
  }),
  logLevel: setting({
    env: 'LOG_LEVEL',
    fallback: 'INFO',
    doc: "TRACE, DEBUG, INFO, WARN or ERROR (the SDK's logs and ours)",
    parse: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'], {
      error: 'must be TRACE, DEBUG, INFO, WARN or ERROR',
    }),
  }),
  maxCachedWorkflows: setting({
    env: 'MAX_CACHED_WORKFLOWS',
    fallback: '',
    doc: "Workflows kept in this worker's cache, at least 1 (a small cache makes most workflow tasks replay their history: a determinism check). 0 is refused: local activities need their workflow kept through its task (with 0, SDK 1.24 let workflow tasks time out over and over); unset: the SDK's default",
    parse: optional(integer(1, 1_000_000)),
  }),
  crashAt: setting({
    env: 'CRASH_AT',
    fallback: '',
    doc: `Fault tests only: kill this process with SIGKILL at \`<point>[@<n>]\` (n-th time; comma-separated), points ${crashPoints.join(', ')}`,
    parse: crashPlan,
  }),
  panicAt: setting({
    env: 'PANIC_AT',
    fallback: '',
    doc: 'Fault tests only: the step throws a TypeError (a bug) right after its side effect at `<point>[@<n>]` (n-th time; comma-separated), points as CRASH_AT; the worker counts a panic and the step is retried',
    parse: crashPlan,
  }),
  orphanSweepMs: setting({
    env: 'ORPHAN_SWEEP_MS',
    fallback: '60000',
    doc: "How often the fleet's orphan sweep (a Temporal Schedule each worker ensures at start) starts the workflow of an intent or batch a crash left without one; 0: this worker leaves the schedule alone",
    parse: integer(0, 86_400_000).refine((ms) => ms === 0 || ms >= 1000, {
      error: 'must be 0 (leave the schedule alone) or at least 1000',
    }),
  }),
  finalitySweepMs: setting({
    env: 'FINALITY_SWEEP_MS',
    fallback: '30000',
    doc: "How often the fleet's finality sweep (a Temporal Schedule each worker ensures at start) marks confirmed intents whose block is final (`finalizedAt`, webhook `intent.finalized`); 0: this worker leaves the schedule alone",
    parse: integer(0, 86_400_000).refine((ms) => ms === 0 || ms >= 1000, {
      error: 'must be 0 (leave the schedule alone) or at least 1000',
    }),
  }),
  topUpSweepMs: setting({
    env: 'TOP_UP_SWEEP_MS',
    fallback: '60000',
    doc: "How often the fleet's top-up sweep of each chain with a treasury (a Temporal Schedule per chain each worker ensures at start) starts a top-up of every hot wallet below its low mark; 0: this worker leaves the schedules alone",
    parse: integer(0, 86_400_000).refine((ms) => ms === 0 || ms >= 1000, {
      error: 'must be 0 (leave the schedules alone) or at least 1000',
    }),
  }),
  drainTimeoutMs: setting({
    env: 'DRAIN_TIMEOUT_MS',
    fallback: '20000',
    doc: 'On SIGTERM, how long in-flight steps may finish before they are cancelled',
    parse: integer(0, 600_000),
  }),
};

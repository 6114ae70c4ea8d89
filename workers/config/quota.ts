import { z } from 'zod';
import { integer, optional, methodWeights, pemFile, setting } from './parsers';

/** The pool of step slots and the RPC quota: permits, spend windows, the budget, Redis. */
export const quotaSettings = {
  quotaMode: setting({
    env: 'QUOTA_MODE',
    fallback: 'bottleneck',
    doc: '`bottleneck`: permits and send pacing by Bottleneck (THROTTLE_*, shared through REDIS_URL). `task-queue`: the Temporal server hands out permits at THROTTLE_PER_SECOND (maxTaskQueueActivitiesPerSecond on the throttle queue), no Bottleneck',
    parse: z.enum(['bottleneck', 'task-queue'], { error: 'must be bottleneck or task-queue' }),
  }),
  poolWidth: setting({
    env: 'POOL_WIDTH',
    fallback: '8',
    doc: 'Activity slots of this process for the steps that do work',
    parse: integer(1, 10_000),
  }),
  maxInFlight: setting({
    env: 'THROTTLE_MAX_IN_FLIGHT',
    fallback: '3',
    doc: 'Sends in flight at once (permits), whatever the pool width',
    parse: integer(1, 10_000),
  }),
  perSecond: setting({
    env: 'THROTTLE_PER_SECOND',
    fallback: '10',
    doc: 'Sends started per second (token bucket rate)',
    parse: integer(1, 100_000),
  }),
  burst: setting({
    env: 'THROTTLE_BURST',
    fallback: '10',
    doc: 'Sends that may start back to back after a quiet period (bucket size)',
    parse: integer(1, 100_000),
  }),
  lineOrder: setting({
    env: 'THROTTLE_LINE_ORDER',
    fallback: 'priority',
    doc: "`priority`: the permit line gives an urgent intent, or one of a tenant holding less than its weight's share, an earlier slot than those it goes before; `arrival`: slots in the order intents asked",
    parse: z.enum(['priority', 'arrival'], { error: 'must be priority or arrival' }),
  }),
  maxWaitMs: setting({
    env: 'THROTTLE_MAX_WAIT_MS',
    fallback: '30000',
    doc: 'Longest wait for a permit before the intent steps back and retries later',
    parse: integer(100, 90_000),
  }),
  permitTtlMs: setting({
    env: 'PERMIT_TTL_MS',
    fallback: '60000',
    doc: 'A permit whose holder never released it is reclaimed after this',
    parse: integer(1000, 3_600_000),
  }),
  rpcUnitsPerSecond: setting({
    env: 'RPC_UNITS_PER_SECOND',
    fallback: '100',
    doc: "The provider's limit per endpoint, in RPC_WEIGHTS units per second: every JSON-RPC call spends from it (the head and receipts first, then sends, look-ups that can wait last), shared through REDIS_URL",
    parse: integer(1, 10_000_000),
  }),
  rpcBurstUnits: setting({
    env: 'RPC_BURST_UNITS',
    fallback: '100',
    doc: 'Units that may go back to back after a quiet period (at least the heaviest call the relayer needs)',
    parse: integer(1, 10_000_000),
  }),
  rpcWeights: setting({
    env: 'RPC_WEIGHTS',
    fallback: 'per-call',
    doc: 'What each call costs: `per-call` (1 unit each) or `alchemy` (its throughput compute units: a send 250, most reads 10–26), then `<method>=<units>` overrides, comma-separated (e.g. `alchemy,eth_call=30`)',
    parse: methodWeights,
  }),
  redisUrl: setting({
    env: 'REDIS_URL',
    fallback: '',
    doc: 'redis://… shares the quota (Bottleneck cluster) across worker processes; unset: per process',
    // May carry a password: never echoed.
    secret: true,
    parse: optional(
      z.string().regex(/^rediss?:\/\/\S+$/, { error: 'must be a redis:// or rediss:// URL' }),
    ),
  }),
  redisTlsCa: setting({
    env: 'REDIS_TLS_CA_FILE',
    fallback: '',
    doc: "The CA (PEM file) that signed a rediss:// server's certificate, when not a public one (managed Redis often)",
    parse: optional(pemFile),
  }),
};

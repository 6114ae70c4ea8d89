import type { SlowIntent } from './slowest-intents';
import type { Client } from '@temporalio/client';
import type { ProviderWindow } from '../../test/harness/stack/provider-count';
import type { BaselineCell } from './baseline';
import type { IntentProfile } from './intent-profile';
import { randomBytes } from 'node:crypto';
import { essentialMethods, weightOf, type MethodWeights } from '../../throttle/rpc-weights';

import type { Arm } from './arms';

// One cell of the grid (an arm at N, Q, processes, chain, provider), and what it measured.

/**
 * What the provider in front of anvil counts: `sends` (eth_sendRawTransaction only, the model of
 * earlier versions of this bench, kept so their figures compare) or `all` (every call, by weight).
 */
export type ProviderModel = 'sends' | 'all';

export interface Cell {
  arm: Arm;
  intents: number;
  /** Per second: sends (model `sends`) or units (model `all`); undefined: unlimited. */
  quota: number | undefined;
  processes: number;
  /** anvil's block time; 0: automine (a block per transaction). */
  blockTimeSeconds: number;
  model: ProviderModel;
  /** What the intents pay: the native coin, or a 6-decimal ERC-20 (a standard one). */
  asset: BenchAsset;
  /** A webhook endpoint of the cell's tenant, and how its receiver answers: none, 2xx, never. */
  webhooks: BenchWebhooks;
  /** How the provider counts its limit: a token bucket or a rolling second. */
  providerWindow: ProviderWindow;
  /** The relayer's processes export traces to a Jaeger (OTEL_EXPORTER_OTLP_ENDPOINT). */
  traces: boolean;
  /** How the cell's processes run our TypeScript: through the tsx loader, or compiled. */
  workers: WorkerBuild;
  /** The configured quota ÷ the provider's real limit (1: configured as published). */
  limitFactor: number;
  /**
   * Submit for this many minutes, keeping `intents` open at a time, instead of `intents` at once;
   * the result's cell then holds the count submitted.
   */
  minutes?: number;
  /** Which of `--runs` whole grids the cell belongs to (unset: one run). */
  run?: number;
}

export type BenchWebhooks = 'none' | 'ok' | 'hang';

/**
 * `tsx`: the entry points through the tsx loader, as every earlier bench ran them (and as `npm
 * run worker` does); `compiled`: compiled once (esbuild, packages from node_modules), as the
 * production image runs `node dist/…`. The loader turns Node's source maps on, which every
 * function compiled at run time pays for (the SDK compiles one per promise in workflow code).
 */
export type WorkerBuild = 'tsx' | 'compiled';
export const workerBuilds: readonly WorkerBuild[] = ['tsx', 'compiled'];
/** The key webhook secrets are sealed with in the bench's processes. */
export const benchWebhookKey = randomBytes(32);

export type BenchAsset = 'native' | 'token';
/** The token of the `token` cells, deployed on each cell's chain. */
export const benchToken = { alias: 'BUSD', decimals: 6, amount: 1_000_000n };

export interface Result {
  cell: Cell;
  intentsPerSecond: number;
  sendsPerSecond: number;
  /** Provider units (RPC_WEIGHTS of every call) per second, between the 10th and 90th percentile. */
  unitsPerSecond: number;
  unitsPerIntent: number;
  refusedByProvider: number;
  /** Refused calls ÷ every call that reached the provider. */
  refusedShare: number;
  /**
   * Sends (model `sends`) or units (model `all`) per second ÷ the provider's real limit, from
   * 30 s after the start to the last submission (`--minutes`) or the last call; undefined when
   * that is under 10 s.
   */
  usedAfter30s: number | undefined;
  /** Sends or units accepted ÷ Q from the 10th to the 80th percentile second of the run. */
  usedMidRun: number | undefined;
  refusedByMethod: Record<string, number>;
  rpcPerIntent: Record<string, number>;
  /** From the first send of an intent's transaction to its confirmation, in block times. */
  confirmP50Blocks: number | undefined;
  /** Step attempts that did not finish the step: failed and retried, or paced (a send too early). */
  retriesPerIntent: number;
  /** Permits never released, taken back by their expiration (each held a slot for its TTL). */
  permitsReclaimed: number;
  /**
   * The relayer's RPC budgets, every process and endpoint: the share of calls that waited in the
   * budget's line, their mean wait, and the delivery margin the window decisions held back (mean
   * and most, ms): what a rolling second lets through sustained is 1000 ÷ (1000 + margin). Over
   * each process's first call to its last: the share of the time its line held a call, and (one
   * process) the use of Q while it did and while it did not — demand told from the limiter; the
   * mean ms the line's timer woke late past the window's answer; calls whose request left later
   * than the margin covered (their spends moved).
   */
  /**
   * Model `all` with a quota: the most of the provider's limit any limiter keeping a rolling
   * second (window 1,000 ms), or the window this one kept (1,000 ms and its margin), can use for
   * the mix of calls `usedMidRun` is measured over: sends are whole (packing-bound.ts).
   */
  packingBound: { rollingSecond: number; keptWindow: number } | undefined;
  rpcLine: {
    linedShare: number;
    linedMeanMs: number;
    marginMeanMs: number;
    marginMostMs: number;
    busyShare: number;
    usedWhileBusy: number | undefined;
    usedWhileIdle: number | undefined;
    lateMeanMs: number;
    /** The share of calls that left the process 5 ms or more after the window's answer. */
    leftLateShare: number;
  };
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The machine's 1-minute load average just before the cell started. */
  loadAverage: number;
  /** Where p99 is over 3 × p50: the five slowest intents and where their time went. */
  slowest?: SlowIntent[];
  historyEventsPerIntent: number | undefined;
  workflowTasksPerIntent: number | undefined;
  /** The same workflows' events per intent by type. */
  historyEventsByType: Record<string, number> | undefined;
  cpuMsPerIntent: { worker: number; server: number; anvil: number };
  peakRssMb: number;
  /** CPU time of every process of the cell (workers, server, anvil, this one) ÷ wall time. */
  coresBusy: number;
  wallSeconds: number;
  /** Events the cell's webhook receiver accepted by the end (deduped), if it had one. */
  webhooksDelivered?: number;
  /** Where an intent's cost went (--profile, the Temporal arms). */
  profile?: IntentProfile;
  /** The same cell measured on the baseline's build (--baseline), just before or after. */
  baseline?: BaselineCell;
}

export const poolWidth = 32;
export const quotaLabel = (quota: number | undefined) =>
  quota === undefined ? 'unlimited' : `${quota}/s`;
export const chainLabel = (cell: Cell) =>
  cell.blockTimeSeconds === 0 ? 'automine' : `${cell.blockTimeSeconds} s blocks`;
/** The largest budget RPC_UNITS_PER_SECOND takes: no limit in practice. */
export const unmetered = 10_000_000;

/** The Temporal server a cell's arm runs on, and how the bench reaches it. */
export interface Server {
  address: string;
  client: Client;
  /** Its CPU time so far (with its database's, for arm P). */
  cpuMs(): number;
  /** Its Prometheus page, where the bench profiles (--profile, the tuned dev server only). */
  metricsUrl?: string;
}

/** The provider's weights of each method (RPC_WEIGHTS, as written and as read). */
export interface Provider {
  setting: string;
  weights: MethodWeights;
}

/**
 * The bucket of a provider counting every call: a second's quota (providers measure their limit
 * over a second or more), and at least the heaviest call.
 */
export const burstOf = (quota: number, weights: MethodWeights) =>
  Math.max(quota, ...essentialMethods.map((method) => weightOf(weights, method)));

export const list = (value: string) => value.split(',').map((part) => part.trim());

/** The defaults of the flags that shape a cell (as every earlier bench had them too). */
export const cellDefaults = {
  blockTime: '0',
  model: 'sends',
  weights: 'per-call',
  asset: 'native',
  webhooks: 'none',
  providerWindow: 'bucket',
  limitFactor: '1',
  traces: 'off',
  workers: 'tsx',
} as const;

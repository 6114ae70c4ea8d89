import { BrokenInvariantError } from '../domain/errors';
import type Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { Counter, Histogram, type Registry } from 'prom-client';
import { endpointLabel, type ChainBudget } from '../chain/evm/settings';
import { RpcBudget } from '../throttle/rpc-budget';
import { weightOf } from '../throttle/rpc-weights';
import { sharedSpendWindow } from '../throttle/shared-spend-window';
import { localSpendWindow } from '../throttle/spend-window';
import type { ChainEndpoint } from './config/chains-file';
import type { RelayerConfig } from './config/load';
import type { RpcBudgetTally } from '../throttle/rpc-budget';

/** The stop line of one endpoint's budget (the bench reads it: test/harness/stack). */
export const tallyLine = (t: RpcBudgetTally): string =>
  `${t.calls} calls, ${t.lined} waited in line for ${Math.round(t.linedMs)} ms in all, ` +
  `margin ${t.marginMs.least}-${t.marginMs.most} ms (mean ${t.marginMs.mean.toFixed(1)}); ` +
  `${t.units} units in ${Math.round(t.spanMs)} ms, ${t.busy.units} of them while the line ` +
  `held calls for ${Math.round(t.busy.ms)} ms; ${t.wakes.count} wakes, ` +
  `${Math.round(t.wakes.lateMs)} ms late in all; ${t.movedLate} left late`;

export interface RpcBudgets {
  forChain(chainId: number): ChainBudget;
  /** A line per endpoint: what its budget did (the stop line's). */
  tallies(): string[];
  close(): Promise<void>;
}

/**
 * The provider's budget of every endpoint this process calls, one per endpoint URL (an endpoint
 * is a provider account), shared through `redis` by every process that calls it; with metrics
 * of units spent by chain, endpoint and method, and of the time calls waited for budget.
 */
export function startRpcBudgets(
  config: RelayerConfig,
  metrics: Registry,
  redis?: Redis,
): RpcBudgets {
  const units = new Counter({
    name: 'relayer_rpc_units_total',
    help: 'Budget units spent on JSON-RPC calls, by chain, endpoint (host:port) and method (see RPC_WEIGHTS)',
    labelNames: ['chain_id', 'endpoint', 'method'] as const,
    registers: [metrics],
  });
  const waited = new Histogram({
    name: 'relayer_rpc_budget_wait_seconds',
    help: 'Time a JSON-RPC call waited for budget before it went, by method',
    labelNames: ['method'] as const,
    buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics],
  });
  const budgets = new Map<string, RpcBudget>();
  // Each endpoint's quota, as its chain's settings give it (CHAINS_FILE, else the environment).
  const endpointsOf = (chainId: number): ChainEndpoint[] => {
    const chain = config.chains.find((c) => c.chainId === chainId);
    if (!chain) {
      throw new BrokenInvariantError({
        rule: `chain ${chainId} is not one of the configured chains`,
      });
    }
    return chain.endpoints;
  };
  const endpointOf = (chainId: number, url: string): ChainEndpoint => {
    const endpoint = endpointsOf(chainId).find((e) => e.url === url);
    if (!endpoint) {
      throw new BrokenInvariantError({
        rule: `${endpointLabel(url)} is not an endpoint of chain ${chainId}`,
      });
    }
    return endpoint;
  };

  const budgetOf = (chainId: number, url: string): RpcBudget => {
    const endpoint = endpointLabel(url);
    const key = `${chainId} ${url}`;
    let budget = budgets.get(key);
    if (!budget) {
      // The URL's hash, not the URL: a provider's key lives in its path.
      const budgetId = `rpc-budget:${createHash('sha256').update(url).digest('hex').slice(0, 16)}`;
      const { unitsPerSecond, burstUnits, weights } = endpointOf(chainId, url);
      const settings = { unitsPerSecond, weights };
      const limit = { perSecond: unitsPerSecond, burst: burstUnits };
      budget = new RpcBudget(
        settings,
        redis ? sharedSpendWindow(redis, budgetId, limit) : localSpendWindow(limit),
        `chain ${chainId} endpoint ${endpoint}`,
        ({ method, units: spent, waitedMs }) => {
          units.inc({ chain_id: String(chainId), endpoint, method }, spent);
          waited.observe({ method }, waitedMs / 1000);
        },
      );
      budgets.set(key, budget);
    }
    return budget;
  };

  return {
    // Which calls to make (one block-receipts call or one per receipt) follows the chain's first
    // endpoint's weights: the one it calls unless that fails.
    forChain: (chainId) => {
      const first = endpointsOf(chainId)[0]!;
      return {
        gateFor: (url) => budgetOf(chainId, url),
        unitsOf: (method) => weightOf(first.weights, method),
        burstUnits: first.burstUnits,
      };
    },
    tallies: () =>
      [...budgets.values()].map(
        (budget) => `rpc budget ${budget.describe}: ${tallyLine(budget.tally())}`,
      ),
    async close() {
      for (const budget of budgets.values()) await budget.close();
    },
  };
}

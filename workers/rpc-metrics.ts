import { Counter, type Registry } from 'prom-client';
import type { RpcResponseEvent } from '../chain/evm/settings';

/**
 * Requests per RPC endpoint and answer: an endpoint that fails or rate-limits shows up here while
 * the fallback keeps the sends going through the others.
 */
export function rpcResponseCounter(metrics: Registry): (event: RpcResponseEvent) => void {
  const requests = new Counter({
    name: 'relayer_rpc_requests_total',
    help: 'JSON-RPC requests by chain, endpoint (host:port), method and outcome (ok or error)',
    labelNames: ['chain_id', 'endpoint', 'method', 'outcome'] as const,
    registers: [metrics],
  });
  return ({ chainId, endpoint, method, ok }) =>
    requests.inc({
      chain_id: String(chainId),
      endpoint,
      method,
      outcome: ok ? 'ok' : 'error',
    });
}

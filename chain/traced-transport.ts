import type { Transport } from 'viem';
import { inSpan } from '../domain/tracer';

/**
 * One endpoint's transport whose every JSON-RPC call is a span (traces on, workers/tracing.ts):
 * the method, the endpoint's host (never its path, where providers put the key) and the quota
 * units it spends. Outside the budget, so a call the quota holds back shows how long it waited.
 */
export const traced =
  (inner: Transport, call: { endpoint: string; unitsOf: (method: string) => number }): Transport =>
  (options) => {
    const transport = inner(options);
    const request: typeof transport.request = (args, requestOptions) =>
      inSpan(
        args.method,
        {
          'rpc.system': 'jsonrpc',
          'rpc.method': args.method,
          'server.address': call.endpoint,
          'relayer.rpc.units': call.unitsOf(args.method),
        },
        () => transport.request(args, requestOptions),
      );
    return { ...transport, request };
  };

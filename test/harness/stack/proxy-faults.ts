/**
 * How the proxy answers instead of the node, like a provider on a bad day: an HTTP error status
 * (429 rate limit, 503), a JSON-RPC error inside an HTTP 200 (how many providers rate-limit, and
 * how a recorded node message is replayed), no answer at all, or a reset connection.
 */
export type ProxyFault =
  | { kind: 'http-status'; status: number; body?: string }
  | { kind: 'rpc-error'; code: number; message: string }
  | { kind: 'hang' }
  | { kind: 'reset' }
  /** Not refusals: the node gets the call, and answers `ms` late, or its answer is lost. */
  | { kind: 'latency'; ms: number }
  | { kind: 'lost-answer' };

import { HttpRequestError, LimitExceededRpcError, type Transport } from 'viem';
import { departing } from './call-departures';
import type { CallDeparture } from '../domain/call-departure';

/**
 * The provider's budget as the chain sees it: a call waits for its units before it goes, and a
 * rate refusal from the provider slows every process sharing the budget (throttle/rpc-budget.ts).
 */
export interface RpcGate {
  /**
   * `priority`: 0 first, 9 last; unset, the method's own (throttle/rpc-weights.ts). The call
   * tells the departure when its request leaves the process.
   */
  spend(method: string, priority?: number): Promise<CallDeparture>;
  refused(method: string, retryAfterMs?: number): void;
  /** How long calls still wait for the provider's Retry-After (0: none). */
  pausedForMs(): number;
}

/** The budget's place of a background read (a deposit scan): behind every other call. */
export const backgroundPriority = 9;

/**
 * One endpoint's transport whose every JSON-RPC call first spends from the endpoint's budget:
 * whatever code makes the call (a step, the head watcher, a review check, the worker's start).
 * `priority`: every call's place in the budget's line, instead of its method's.
 */
export const metered =
  (inner: Transport, gate: RpcGate, priority?: number): Transport =>
  (options) => {
    const transport = inner(options);
    const request: typeof transport.request = async (args, requestOptions) => {
      const departure = await gate.spend(args.method, priority);
      try {
        return await departing(departure, () => transport.request(args, requestOptions));
      } catch (error) {
        const refusal = rateRefusal(error);
        if (refusal) gate.refused(args.method, refusal.retryAfterMs);
        throw error;
      }
    };
    return { ...transport, request };
  };

/** A provider's "too many requests": HTTP 429, or JSON-RPC -32005 inside an HTTP 200. */
export function rateRefusal(error: unknown): { retryAfterMs?: number } | undefined {
  if (error instanceof HttpRequestError && error.status === 429) {
    return { retryAfterMs: retryAfterMs(error.headers?.get('retry-after')) };
  }
  if (error instanceof LimitExceededRpcError) return {};
  return undefined;
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(
  header: string | null | undefined,
  now = Date.now(),
): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

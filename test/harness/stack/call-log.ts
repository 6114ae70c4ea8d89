import type { Hex } from 'viem';
import type { ProxyFault } from './proxy-faults';

export interface RecordedCall {
  method: string;
  /** ms since the proxy started */
  startedAt: number;
  endedAt?: number;
  /** For eth_sendRawTransaction: the hash of the bytes sent. */
  txHash?: Hex;
  /** How the proxy answered instead of the node, if it did (quota, a fault). */
  refused?: ProxyFault['kind'] | 'quota' | 'dropped';
}

/** What an RPC proxy saw: every call, in the order it arrived, on the proxy's own clock. */
export class CallLog {
  constructor(
    readonly calls: RecordedCall[],
    /** When the proxy's clock read 0, in ms since 1970 (each process has its own timeOrigin). */
    private readonly wallOriginMs: number,
  ) {}

  /** How many calls of each method arrived. */
  countsByMethod(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const call of this.calls) counts[call.method] = (counts[call.method] ?? 0) + 1;
    return counts;
  }

  /** Calls the proxy answered itself with a quota refusal: what a provider would have billed as 429s. */
  quotaRefusals(): number {
    return this.calls.filter((call) => call.refused === 'quota').length;
  }

  /** Quota refusals by method. */
  quotaRefusalsByMethod(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const call of this.calls) {
      if (call.refused === 'quota') counts[call.method] = (counts[call.method] ?? 0) + 1;
    }
    return counts;
  }

  /** Every distinct transaction hash whose raw bytes the workers sent (answered or not). */
  sentTxHashes(): Set<Hex> {
    return new Set(this.calls.flatMap((call) => (call.txHash ? [call.txHash] : [])));
  }

  /** The log, one JSON object per line: what to keep when a suite fails. */
  log(): string {
    return this.calls.map((call) => JSON.stringify(call)).join('\n');
  }

  /** Calls of `method`, in the order they arrived. */
  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Calls of `method` that have arrived and not yet been answered. */
  inFlight(method: string): number {
    return this.callsOf(method).filter((call) => call.endedAt === undefined).length;
  }

  /** A time of the log (ms since the proxy started) as a wall-clock time (ms since 1970). */
  wallTimeOf(ms: number): number {
    return this.wallOriginMs + ms;
  }
}

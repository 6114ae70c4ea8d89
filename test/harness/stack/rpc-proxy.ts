import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { unsafeUniformIntDistribution, xoroshiro128plus, type RandomGenerator } from 'pure-rand';
import { keccak256, type Hex } from 'viem';
import { freePort } from './free-port';
import { providerCount, type ProviderCount, type ProviderWindow } from './provider-count';
import { CallLog, type RecordedCall } from './call-log';
import type { ProxyFault } from './proxy-faults';

export type { RecordedCall } from './call-log';
export type { ProxyFault } from './proxy-faults';

/**
 * A provider's own rate limit: a token bucket of `burst` units refilled at `perSecond`, or a
 * rolling second of `perSecond` units (`window`, see provider-count.ts), each call costing its method's weight (`weights`, 1 unit for a method it does not name, as a provider's
 * compute-unit table), counting the calls of `methods` only when given (the send-only model of
 * earlier benchmarks). Over it, the call is refused as a provider would: HTTP 429, or an HTTP
 * 200 carrying JSON-RPC error -32005 "limit exceeded".
 */
export interface ProxyQuota {
  perSecond: number;
  burst: number;
  answer: 'http-429' | 'rpc-error';
  /** How the provider counts (default: a token bucket). */
  window?: ProviderWindow;
  methods?: string[];
  weights?: Readonly<Record<string, number>>;
  /** Units of a method `weights` does not name (default 1). */
  otherMethods?: number;
}

/**
 * Faults on a seeded schedule: each request meets, with probability `rate`, one of `faults`
 * (chosen uniformly). The same seed and the same order of requests give the same faults.
 */
export interface ChaosSchedule {
  seed: number;
  rate: number;
  faults: ProxyFault[];
}

const quotaError = { code: -32005, message: 'limit exceeded' };

interface JsonRpcRequest {
  id?: unknown;
  method?: string;
  params?: unknown[];
}

/**
 * A JSON-RPC proxy on loopback between the workers and the node: the ground truth of what the RPC
 * provider saw (every call, when it started and ended) and a place to make the provider slow.
 */
export class RpcProxy extends CallLog {
  private readonly holds = new Map<string, number>();
  private fault: { fault: ProxyFault; methods?: string[] } | undefined;
  private sendsToDrop = 0;
  private quota: (ProxyQuota & { count: ProviderCount }) | undefined;
  private chaos: { schedule: ChaosSchedule; random: RandomGenerator } | undefined;
  /**
   * The proxy stamps a call when its process gets to it: a stall of that process (the test
   * runner's) stamps the calls that came meanwhile together, later than they arrived.
   */
  private readonly stalls = monitorEventLoopDelay({ resolution: 10 });

  private readonly server: Server;

  private constructor(
    readonly url: string,
    private readonly upstream: string,
    private readonly startedAt = performance.now(),
  ) {
    super([], performance.timeOrigin + startedAt);
    this.server = createServer((request, response) => {
      this.handle(request, response)
        .then((body) => {
          if (body === undefined) return; // answered already, by a fault
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(body);
        })
        .catch((error: Error) => {
          response.writeHead(502, { 'content-type': 'text/plain' });
          response.end(error.message);
        });
    });
  }

  static async start(upstream: string, port?: number): Promise<RpcProxy> {
    const listenPort = port ?? (await freePort());
    const proxy = new RpcProxy(`http://127.0.0.1:${listenPort}`, upstream);
    await new Promise<void>((resolve) => proxy.server.listen(listenPort, '127.0.0.1', resolve));
    proxy.stalls.enable();
    return proxy;
  }

  /** The node answers `method` at once, but the caller hears back only `ms` later. */
  holdResponses(method: string, ms: number): void {
    if (ms > 0) this.holds.set(method, ms);
    else this.holds.delete(method);
  }

  /**
   * The next `count` sends (eth_sendRawTransaction) are answered with their hash as a node that
   * took them would, and never reach the node: a send lost between the provider and the chain.
   */
  dropSends(count: number): void {
    this.sendsToDrop = count;
  }

  /** Answers with `fault` (for `methods` only, if given) until cleared with undefined. */
  failWith(fault: ProxyFault | undefined, methods?: string[]): void {
    this.fault = fault && { fault, methods };
  }

  /** Enforces `quota` from now on (a full bucket), or stops enforcing one with undefined. */
  enforceQuota(quota: ProxyQuota | undefined): void {
    this.quota = quota && { ...quota, count: providerCount(quota.window ?? 'bucket', quota) };
  }

  /** Injects faults on `schedule` from now on, or stops with undefined. */
  injectChaos(schedule: ChaosSchedule | undefined): void {
    this.chaos = schedule && { schedule, random: xoroshiro128plus(schedule.seed) };
  }

  now(): number {
    return performance.now() - this.startedAt;
  }

  /** The longest this process held calls unstamped since `resetStalls` (or the start), in ms. */
  longestStallMs(): number {
    return Math.ceil(this.stalls.max / 1e6) + 10;
  }

  resetStalls(): void {
    this.stalls.reset();
  }

  close(): Promise<void> {
    this.stalls.disable();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<string | undefined> {
    const body = await readBody(request);
    const parsed = JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[];
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    const recorded = calls.map((call) => this.record(call));
    const [only] = calls;
    if (this.sendsToDrop > 0 && calls.length === 1 && only!.method === 'eth_sendRawTransaction') {
      this.sendsToDrop -= 1;
      recorded[0]!.refused = 'dropped';
      recorded[0]!.endedAt = this.now();
      const raw = (only!.params as Hex[])[0]!;
      return JSON.stringify({ jsonrpc: '2.0', id: only!.id, result: keccak256(raw) });
    }
    const refusal = this.refusalFor(recorded);
    if (refusal?.kind === 'latency') await new Promise((r) => setTimeout(r, refusal.ms));
    else if (refusal && refusal.kind !== 'lost-answer') {
      for (const call of recorded) {
        call.refused ??= refusal.kind;
        call.endedAt = this.now();
      }
      return this.answerWith(refusal, calls, response);
    }
    const answer = await fetch(this.upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await answer.text();
    if (refusal?.kind === 'lost-answer') {
      for (const call of recorded)
        Object.assign(call, { refused: refusal.kind, endedAt: this.now() });
      response.socket?.destroy();
      return undefined;
    }
    const hold = Math.max(0, ...recorded.map((call) => this.holds.get(call.method) ?? 0));
    if (hold > 0) await new Promise((resolve) => setTimeout(resolve, hold));
    for (const call of recorded) call.endedAt = this.now();
    return text;
  }

  /** The fault this request meets: the standing one, then the quota, then the chaos schedule. */
  private refusalFor(recorded: RecordedCall[]): ProxyFault | undefined {
    const fault = this.fault;
    if (
      fault &&
      (!fault.methods || recorded.some((call) => fault.methods!.includes(call.method)))
    ) {
      return fault.fault;
    }
    if (this.quota && !this.takeQuotaTokens(this.quota, recorded)) {
      for (const call of recorded) call.refused = 'quota';
      return this.quota.answer === 'http-429'
        ? { kind: 'http-status', status: 429, body: 'Too Many Requests' }
        : { kind: 'rpc-error', ...quotaError };
    }
    const chaos = this.chaos;
    if (!chaos) return undefined;
    const roll = unsafeUniformIntDistribution(0, 999_999, chaos.random) / 1_000_000;
    if (roll >= chaos.schedule.rate) return undefined;
    const pick = unsafeUniformIntDistribution(0, chaos.schedule.faults.length - 1, chaos.random);
    return chaos.schedule.faults[pick];
  }

  private takeQuotaTokens(quota: ProxyQuota & { count: ProviderCount }, recorded: RecordedCall[]) {
    const cost = recorded
      .filter((call) => !quota.methods || quota.methods.includes(call.method))
      .reduce(
        (units, call) => units + (quota.weights?.[call.method] ?? quota.otherMethods ?? 1),
        0,
      );
    return cost === 0 || quota.count.admit(this.now(), cost);
  }

  private answerWith(
    fault: Exclude<ProxyFault, { kind: 'latency' | 'lost-answer' }>,
    calls: JsonRpcRequest[],
    response: ServerResponse,
  ): Promise<string | undefined> {
    switch (fault.kind) {
      case 'hang':
        return new Promise(() => undefined); // never: the caller's timeout is the point
      case 'reset':
        response.socket?.destroy();
        return Promise.resolve(undefined);
      case 'http-status':
        response.writeHead(fault.status, { 'content-type': 'text/plain' });
        response.end(fault.body ?? `HTTP ${fault.status}`);
        return Promise.resolve(undefined);
      case 'rpc-error': {
        const errors = calls.map((call) => ({
          jsonrpc: '2.0',
          id: call.id ?? null,
          error: { code: fault.code, message: fault.message },
        }));
        return Promise.resolve(JSON.stringify(errors.length === 1 ? errors[0] : errors));
      }
    }
  }

  private record(call: JsonRpcRequest): RecordedCall {
    const method = call.method ?? '(none)';
    const raw =
      method === 'eth_sendRawTransaction' ? (call.params?.[0] as Hex | undefined) : undefined;
    const recorded: RecordedCall = {
      method,
      startedAt: this.now(),
      ...(raw && { txHash: keccak256(raw) }),
    };
    this.calls.push(recorded);
    return recorded;
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

/** The most calls in flight at once, from recorded start and end times. */
export function maxConcurrent(calls: RecordedCall[]): number {
  const edges = calls.flatMap((call) => [
    { at: call.startedAt, delta: 1 },
    { at: call.endedAt ?? Number.POSITIVE_INFINITY, delta: -1 },
  ]);
  // An end and a start at the same instant do not overlap.
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let current = 0;
  let most = 0;
  for (const edge of edges) most = Math.max(most, (current += edge.delta));
  return most;
}

/** The most calls that started within any window of `windowMs`. */
export function maxInWindow(calls: RecordedCall[], windowMs: number): number {
  const starts = calls.map((call) => call.startedAt).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < starts.length; last++) {
    while (starts[last]! - starts[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

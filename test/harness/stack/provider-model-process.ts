import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { CallLog, type RecordedCall } from './call-log';
import { stopProcess } from './children';
import type { ProxyQuota } from './rpc-proxy';

export type ModelRequest =
  { id: number; kind: 'quota'; quota: ProxyQuota | undefined } | { id: number; kind: 'take-log' };

type Unsent<T> = T extends unknown ? Omit<T, 'id'> : never;

export type ModelReply =
  | { id: 0; kind: 'ready'; url: string }
  | { id: number; kind: 'done' }
  | { id: number; kind: 'log'; calls: RecordedCall[]; wallOriginMs: number };

/**
 * The RPC proxy as the provider model of a bench: in a process of its own, as a provider is, so
 * the load generator's busy moments never hold its clock and bunch the calls it counts.
 */
export class ProviderModelProcess {
  private next = 1;
  private readonly waiting = new Map<number, (reply: ModelReply | Error) => void>();

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.on('message', (reply: ModelReply) => {
      this.waiting.get(reply.id)?.(reply);
      this.waiting.delete(reply.id);
    });
    child.once('exit', (code, signal) => {
      for (const settle of this.waiting.values())
        settle(new Error(`provider model exited (${code ?? signal}) before it answered`));
      this.waiting.clear();
    });
  }

  /** A proxy in front of `upstream`, counting no quota until told to. */
  static async start(upstream: string): Promise<ProviderModelProcess> {
    const child = fork(resolve(__dirname, 'provider-model-main.ts'), [upstream], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const url = await new Promise<string>((ready, failed) => {
      child.once('message', (reply: ModelReply) =>
        reply.kind === 'ready' ? ready(reply.url) : failed(new Error('no ready message')),
      );
      child.once('exit', (code) => failed(new Error(`provider model exited (${code})`)));
    });
    return new ProviderModelProcess(child, url);
  }

  /** As RpcProxy.enforceQuota, from when the model has it. */
  async enforceQuota(quota: ProxyQuota | undefined): Promise<void> {
    await this.ask({ kind: 'quota', quota });
  }

  /** The calls since the last take (or the start), which the model then forgets. */
  async takeLog(): Promise<CallLog> {
    const reply = await this.ask({ kind: 'take-log' });
    if (reply.kind !== 'log') throw new Error(`provider model answered ${reply.kind}`);
    return new CallLog(reply.calls, reply.wallOriginMs);
  }

  stop(): Promise<void> {
    this.child.disconnect();
    return stopProcess(this.child);
  }

  private ask(request: Unsent<ModelRequest>): Promise<ModelReply> {
    const id = this.next++;
    return new Promise((answered, failed) => {
      this.waiting.set(id, (reply) => (reply instanceof Error ? failed(reply) : answered(reply)));
      this.child.send({ ...request, id });
    });
  }
}

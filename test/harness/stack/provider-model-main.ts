import { RpcProxy } from './rpc-proxy';
import type { ModelReply, ModelRequest } from './provider-model-process';

// The provider model's own process (provider-model-process.ts): an RpcProxy to argv[2] that
// answers its parent's requests over IPC and ends with it.

async function main(upstream: string): Promise<void> {
  const proxy = await RpcProxy.start(upstream);
  const reply = (message: ModelReply) => process.send!(message);
  process.on('message', (request: ModelRequest) => {
    if (request.kind === 'quota') {
      proxy.enforceQuota(request.quota);
      reply({ id: request.id, kind: 'done' });
      return;
    }
    const calls = proxy.calls.splice(0);
    reply({ id: request.id, kind: 'log', calls, wallOriginMs: proxy.wallTimeOf(0) });
  });
  process.once('disconnect', () => void proxy.close().finally(() => process.exit(0)));
  reply({ id: 0, kind: 'ready', url: proxy.url });
}

main(process.argv[2]!).catch((error: Error) => {
  console.error(`provider model: ${error.message}`);
  process.exit(1);
});

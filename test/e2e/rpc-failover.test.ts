import { minedTransactions } from '../harness/stack/chain-truth';
import { freePort } from '../harness/stack/free-port';
import { RpcProxy } from '../harness/stack/rpc-proxy';
import { waitUntilSettled } from '../harness/intents';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';

const world = useWorld({ tenants: { acme: '100' } });
const proxies: RpcProxy[] = [];
world.onStop(() => Promise.all(proxies.map((proxy) => proxy.close().catch(() => undefined))));

const until = async (condition: () => boolean, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('two RPC endpoints, the first rate-limiting and then killed mid-run', () => {
  it('confirms every intent through the second, and counts requests per endpoint', async () => {
    const [first, second] = await Promise.all([
      RpcProxy.start(world.anvil.rpcUrl),
      RpcProxy.start(world.anvil.rpcUrl),
    ]);
    proxies.push(first!, second!);
    const metricsPort = await freePort();
    await world.spawnWorkers(1, {
      RPC_URLS: `${first!.url},${second!.url}`,
      METRICS_PORT: String(metricsPort),
      THROTTLE_PER_SECOND: '50',
      THROTTLE_BURST: '10',
      THROTTLE_MAX_IN_FLIGHT: '4',
    });
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });
    const submit = (count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          world.submit({ from: world.wallets[i % world.wallets.length] }),
        ),
      );

    // The first endpoint answers 429 to every send, like a provider over its quota…
    first!.failWith({ kind: 'http-status', status: 429 }, ['eth_sendRawTransaction']);
    await submit(10);
    await waitUntilSettled(world, 10, 60_000);
    first!.failWith(undefined);

    // …then serves again, and dies while the next intents are on their way.
    const sendsBefore = first!.callsOf('eth_sendRawTransaction').length;
    const submitting = submit(20);
    await until(() => first!.callsOf('eth_sendRawTransaction').length >= sendsBefore + 3);
    await first!.close();
    await submitting;
    await waitUntilSettled(world, 30, 90_000);

    const rows = await world.database.kysely.selectFrom('intents').selectAll().execute();
    expect(rows.map((row) => row.status)).toEqual(Array(30).fill('confirmed'));
    const mined = await minedTransactions(world, startBlock);
    expect(mined).toHaveLength(30);
    expect(new Set(mined.map((tx) => tx.to)).size).toBe(30);
    await expectBooksBalanced(world.database);

    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const count = (endpoint: string, outcome: string) =>
      metrics
        .split('\n')
        .filter(
          (line) =>
            line.startsWith('relayer_rpc_requests_total{') &&
            line.includes(`endpoint="${new URL(endpoint).host}"`) &&
            line.includes(`outcome="${outcome}"`),
        )
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    expect(count(first!.url, 'error')).toBeGreaterThanOrEqual(10);
    expect(count(first!.url, 'ok')).toBeGreaterThan(0);
    expect(count(second!.url, 'ok')).toBeGreaterThan(0);
  });
});

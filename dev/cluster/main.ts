import { parseArgs } from 'node:util';
import { table } from '../../cli/table';
import { createApiKey } from '../../service/api-keys';
import { depositAsset } from '../../service/assets';
import { setUpTenant } from '../../service/tenants';
import { exitOnError } from '../../workers/exit-on-error';
import { installRuntime } from '../../workers/runtime';
import { parseEther } from 'viem';
import { ensureTemporalCli } from '../../test/harness/stack/temporal-binaries';
import { startCluster } from './cluster';
import { wholeNumber } from './options';

const usage = `npm run cluster [-- options]
  --workers <n>   worker processes (default 2, as docker-compose.yml)
  --wallets <n>   hot wallets they sign for (default 4)
  --tls           the Temporal frontend requires mTLS (certificates made at start)
Runs docker-compose.yml's topology without containers until Ctrl-C.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workers: { type: 'string', default: '2' },
      wallets: { type: 'string', default: '4' },
      tls: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return console.log(usage);
  const workers = wholeNumber('workers', values.workers, 1, 16, usage);
  const wallets = wholeNumber('wallets', values.wallets, 1, 10, usage);
  installRuntime('WARN');
  const step = (message: string) => console.log(`• ${message}`);
  const cli = await ensureTemporalCli(step);
  const cluster = await startCluster({ workers, wallets, tls: values.tls, progress: step });
  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      step('stopping: the workers drain, then everything else');
      await cluster.stop();
    })());
  process.once('SIGINT', () => void shutdown().then(() => process.exit(130)));
  process.once('SIGTERM', () => void shutdown().then(() => process.exit(143)));

  const now = new Date();
  await setUpTenant(
    cluster.world.database,
    {
      id: 'acme',
      name: 'Acme',
      deposit: { chainId: cluster.world.anvil.chainId, wei: parseEther('100') },
    },
    now,
  );
  // Books are per chain: acme can pay on the second chain what it deposits there.
  await depositAsset(
    cluster.world.database,
    {
      tenantId: 'acme',
      chainId: cluster.legacyChain.chainId,
      asset: 'native',
      amount: parseEther('10'),
    },
    now,
  );
  const { apiKey } = await createApiKey(
    cluster.world.database,
    { role: 'tenant', tenantId: 'acme', label: 'cluster' },
    now,
  );
  const parts = table(['part', 'where'], ['left', 'left']);
  parts.push(
    ['Temporal server (PostgreSQL)', cluster.temporal.address],
    ['its log', cluster.temporal.logPath],
    ['Temporal Web UI', cluster.ui.url],
    ['traces (Jaeger UI)', cluster.jaeger.queryUrl],
    ['relayer database', cluster.world.databaseUrl],
    ['Redis (shared quota)', cluster.world.redis!.url],
    [`chain ${cluster.world.anvil.chainId}: anvil (1 block/s)`, cluster.world.anvil.rpcUrl],
    ['  its RPC endpoints', cluster.proxies.map((proxy) => proxy.url).join(', ')],
    [
      `chain ${cluster.legacyChain.chainId}: anvil (3 s blocks, legacy gas)`,
      cluster.legacyChain.rpcUrl,
    ],
    [
      'workers',
      `${workers} processes, pids ${cluster.workers.map((w) => w!.child.pid).join(', ')}`,
    ],
    ['API', cluster.apiUrl],
  );
  console.log(parts.toString());
  console.log(
    [
      'try:',
      `  export RELAYER_API_URL=${cluster.apiUrl} RELAYER_API_KEY=${apiKey}`,
      `  npm run -s relayer -- submit --chain-id ${cluster.world.anvil.chainId} --to ${cluster.world.wallets[0]} --eth 0.01 --wait`,
      `  npm run -s relayer -- submit --chain-id ${cluster.legacyChain.chainId} --to ${cluster.world.wallets[0]} --eth 0.01 --wait   # a type-0 transaction`,
      // The Temporal CLI reads the relayer's TEMPORAL_* variables: one set for both.
      `  export ${Object.entries(cluster.temporalEnv)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ')}`,
      `  ${cli.executable.type === 'existing-path' ? cli.executable.path : 'temporal'} workflow list ` +
        `--query 'IntentStatus = "confirmed" AND TenantId = "acme"'`,
      `  (operator key: ${cluster.operatorKey})`,
      'Ctrl-C stops everything.',
    ].join('\n'),
  );
}

void main().catch(exitOnError);

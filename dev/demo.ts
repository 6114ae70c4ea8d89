import { SingleBar } from 'cli-progress';
import { parseArgs } from 'node:util';
import { formatEther, formatUnits, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Database } from '../store/database';
import { depositAsset } from '../service/assets';
import { amountsInUnits, type AmountInUnits } from '../cli/asset-units';
import { balancesOf } from '../service/balances';
import { startEmbeddedStack } from '../test/harness/stack/embedded-stack';
import { waitFor } from '../test/harness/stack/wait-for';
import { ConfigError, loadConfig } from '../workers/config/load';
import { exitOnError } from '../workers/exit-on-error';
import { startRelayerProcess } from '../workers/relayer-process';
import { startJaeger } from '../test/harness/stack/jaeger';
import { installRuntime } from '../workers/runtime';
import { createApiKey } from '../service/api-keys';
import { setUpTenant } from '../service/tenants';
import {
  createApiClient,
  ApiError,
  type RelayerApiClient,
  type SubmitBody,
} from '../cli/api-client';
import { table } from '../cli/table';
import { operatorOwner } from '../domain/custody';
import { terminalStatuses } from '../domain/intent';
import {
  settledCount,
  waitUntilSettled,
  type StatusCounts,
} from '../test/harness/wait-until-settled';
import { setWalletPool } from '../service/wallet-admin';
import { suggestCommands } from './demo-suggestions';
import { fundByDeposit, printDepositTrail } from './demo-deposit';

const usage = `npm start [-- options]
  --intents <n>         demo intents to submit (default 24)
  --keep-running        keep the stack up afterwards to browse the Web UI (Ctrl-C stops it)
  --traces              trace every intent into a Jaeger (built with Go the first time: minutes)
  --temporal-port <p>   Temporal dev server port (default 7233; Web UI on --ui-port, default 8233)
  --ui-port <p>
  --anvil-port <p>      anvil JSON-RPC port (default 8545)
  --api-port <p>        relayer HTTP API port (default 8080)
  --dir <path>          where the run keeps its files (default .relayer/demo)`;

function parseOptions() {
  const parse = () =>
    parseArgs({
      options: {
        intents: { type: 'string', default: '24' },
        'keep-running': { type: 'boolean', default: false },
        traces: { type: 'boolean', default: false },
        'temporal-port': { type: 'string', default: '7233' },
        'ui-port': { type: 'string', default: '8233' },
        'anvil-port': { type: 'string', default: '8545' },
        'api-port': { type: 'string', default: '8080' },
        dir: { type: 'string', default: '.relayer/demo' },
        help: { type: 'boolean', default: false },
      },
    });
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse());
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const number = (flag: string, value: string, max: number) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value) || parsed < 1 || parsed > max) {
      throw usageError(`--${flag}: must be a whole number from 1 to ${max} (got "${value}")`);
    }
    return parsed;
  };
  return {
    help: values.help,
    intents: number('intents', values.intents, 10_000),
    keepRunning: values['keep-running'],
    traces: values.traces,
    temporalPort: number('temporal-port', values['temporal-port'], 65535),
    uiPort: number('ui-port', values['ui-port'], 65535),
    anvilPort: number('anvil-port', values['anvil-port'], 65535),
    apiPort: number('api-port', values['api-port'], 65535),
    dir: values.dir,
  };
}

const usageError = (problem: string) =>
  new ConfigError({ problems: [problem, '', usage], heading: 'invalid command line' });

/**
 * What each tenant has on the second chain (the home chain's is in `tenants`): acme's deposited
 * by an operator's command, globex's sent on chain to its deposit address.
 */
const secondChainDeposit = parseEther('5');
const fundedOnChain = 'globex';
/** How often the demo's treasury looks for hot wallets to top up. */
const demoTopUpSweepMs = 2000;

/** Each tenant may have 6 intents open at once: the demo shows admission turning the rest away. */
const tenants = [
  { id: 'acme', name: 'Acme Payroll', depositWei: parseEther('50'), maxInFlight: 6 },
  { id: 'globex', name: 'Globex Refunds', depositWei: parseEther('50'), maxInFlight: 6 },
];

async function main(): Promise<void> {
  const options = parseOptions();
  if (options.help) return console.log(usage);
  installRuntime('WARN');
  const step = (message: string) => console.log(`• ${message}`);

  step('starting Temporal dev server, two anvils (two chains) and the database');
  const stack = await startEmbeddedStack({ ...options, progress: step });
  const [walletA, walletB, treasuryKey] = stack.anvil.keys;
  // The chains come from the stack's chains file: the shorthand for one chain must be unset.
  const shorthand = ['CHAIN_ID', 'RPC_URLS', 'EXTRA_CHAINS'];
  const environment = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !shorthand.includes(name)),
  );
  const jaeger = options.traces ? await startJaeger(step) : undefined;
  const config = loadConfig({
    ...environment,
    TEMPORAL_ADDRESS: stack.temporal.address,
    DATABASE_URL: stack.databaseUrl,
    CHAINS_FILE: stack.chainsFile,
    HOT_WALLET_KEYS: `${walletA},${walletB},${treasuryKey}`,
    CONFIRM_POLL_INTERVAL_MS: process.env.CONFIRM_POLL_INTERVAL_MS ?? '200',
    TOP_UP_SWEEP_MS: process.env.TOP_UP_SWEEP_MS ?? String(demoTopUpSweepMs),
    DEPOSIT_SCAN_MS: process.env.DEPOSIT_SCAN_MS ?? '1000',
    DEPOSIT_SWEEP_MS: process.env.DEPOSIT_SWEEP_MS ?? String(demoTopUpSweepMs),
    API_PORT: String(options.apiPort),
    ...(jaeger && { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint }),
  });
  step('starting a relayer worker and its HTTP API');
  const relayer = await startRelayerProcess(config, ['worker', 'api']);

  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      step('stopping: draining the worker, then the dev server and the anvils');
      await relayer.stop();
      await Promise.all([stack.stop(), jaeger?.stop()]);
    })());
  // A signal while stopping (an impatient second Ctrl-C, or tsx relaying the terminal's) must not
  // end this process before its servers stop: they would outlive it and hold the ports.
  let signals = 0;
  const onSignal = (code: number) => () => {
    signals += 1;
    if (signals === 2) step('still stopping: the worker drains, then the servers stop');
    void shutdown().then(() => process.exit(code));
  };
  process.on('SIGINT', onSignal(130));
  process.on('SIGTERM', onSignal(143));

  const now = new Date();
  const apiKeys = new Map<string, string>();
  for (const tenant of tenants) {
    await setUpTenant(
      relayer.database,
      { ...tenant, deposit: { chainId: config.chainId, wei: tenant.depositWei } },
      now,
    );
    const { apiKey } = await createApiKey(
      relayer.database,
      { role: 'tenant', tenantId: tenant.id, label: 'demo' },
      now,
    );
    apiKeys.set(tenant.id, apiKey);
    if (tenant.id === fundedOnChain) continue;
    // Books are per chain: what pays on the second chain is deposited there.
    await depositAsset(
      relayer.database,
      {
        tenantId: tenant.id,
        chainId: stack.secondAnvil.chainId,
        asset: 'native',
        amount: secondChainDeposit,
      },
      now,
    );
  }
  step(
    `tenants ${tenants.map((t) => t.id).join(', ')}: ${formatEther(tenants[0]!.depositWei)} ETH on chain ${config.chainId}; ` +
      `on chain ${stack.secondAnvil.chainId} (its blocks come every second) acme ${formatEther(secondChainDeposit)} ETH by an operator's deposit`,
  );
  const onChain = { id: fundedOnChain, apiKey: apiKeys.get(fundedOnChain)! };
  const sentOnChain = {
    wei: secondChainDeposit,
    token: stack.depositToken,
    tokenAmount: 250n * 10n ** BigInt(stack.depositToken.decimals),
  };
  const depositTxs = await fundByDeposit(relayer, stack.secondAnvil, onChain, sentOnChain, step);

  const senders = [privateKeyToAccount(walletA!).address, privateKeyToAccount(walletB!).address];
  // A wallet of its own per tenant on the first chain (each tenant's intents come from it): a
  // contract call is sent only from a wallet no other tenant may use.
  for (const [index, tenant] of tenants.entries()) {
    await setWalletPool({ database: relayer.database }, tenant.id, config.chainId, [
      senders[index]!,
    ]);
  }
  const startedAt = Date.now();
  let refusals = 0;
  step(`submitting ${options.intents} intents through ${relayer.apiUrl}`);
  const submissions = await Promise.allSettled(
    Array.from({ length: options.intents }, (_, i) => {
      const tenant = tenants[i % tenants.length]!;
      const api = createApiClient(relayer.apiUrl!, apiKeys.get(tenant.id));
      return submitUntilAdmitted(
        api,
        {
          // Every third on the second chain.
          chainId: i % 3 === 2 ? stack.secondAnvil.chainId : config.chainId,
          from: senders[i % senders.length]!,
          to: privateKeyToAccount(generatePrivateKey()).address,
          amount: parseEther(`0.${String(10 + (i % 90)).padStart(2, '0')}`).toString(),
        },
        `demo-${startedAt}-${i}`,
        () => refusals++,
      );
    }),
  );
  const rejected = submissions.filter((s) => s.status === 'rejected');
  for (const failure of rejected) console.log(`  rejected: ${String(failure.reason)}`);
  const accepted = submissions.length - rejected.length;
  step(
    `submitted ${accepted} intents (${refusals} admission refusals, retried); ` +
      `watch them at ${stack.webUiUrl}/namespaces/default/workflows`,
  );

  const counts = await watchUntilSettled(relayer.database, accepted);
  const elapsedSeconds = (Date.now() - startedAt) / 1000;
  printSummary(counts, rejected.length, refusals, elapsedSeconds, stack.webUiUrl);
  await printLedger(relayer.database);
  const anyKey = createApiClient(relayer.apiUrl!, apiKeys.get('acme'));
  await printTopUps(relayer.database, config.topUpSweepMs, await amountsInUnits(anyKey));
  await printDepositTrail(relayer, stack.secondAnvil.chainId, onChain, sentOnChain, depositTxs);
  // Every demo intent can be paid: one that is not confirmed is a fault, and the run says so.
  const unconfirmed = options.intents - (counts.confirmed ?? 0);
  if (unconfirmed > 0) {
    console.error(`demo: ${unconfirmed} of ${options.intents} intents not confirmed`);
    process.exitCode = 1;
  }

  if (jaeger) step(`traces: ${jaeger.queryUrl} (service payment-relayer)`);
  if (options.keepRunning) {
    await suggestCommands({
      stack,
      relayer,
      chainId: config.chainId,
      databaseUrl: config.databaseUrl,
      tenantKey: apiKeys.get('acme')!,
      tenantWallet: senders[0]!,
      step,
    });
    step('Ctrl-C stops everything');
    return;
  }
  await shutdown();
}

async function watchUntilSettled(database: Database, total: number): Promise<StatusCounts> {
  const bar = new SingleBar({
    format:
      '  intents |{bar}| {value}/{total} settled · confirmed {confirmed} · failed {failed} · review {review}',
    noTTYOutput: true,
    notTTYSchedule: 2000,
    hideCursor: true,
  });
  bar.start(total, 0, { confirmed: 0, failed: 0, review: 0 });
  const counts = await waitUntilSettled(database, total, {
    onProgress: (seen) =>
      bar.update(settledCount(seen), {
        confirmed: seen.confirmed ?? 0,
        failed: seen.failed ?? 0,
        review: seen.needs_review ?? 0,
      }),
  });
  bar.stop();
  return counts;
}

function printSummary(
  counts: StatusCounts,
  rejected: number,
  refusals: number,
  elapsedSeconds: number,
  webUiUrl: string,
): void {
  const settled = settledCount(counts);
  const summary = table(['outcome', 'intents'], ['left', 'right']);
  summary.push(
    ['confirmed', counts.confirmed ?? 0],
    ['failed', counts.failed ?? 0],
    ['needs_review', counts.needs_review ?? 0],
    ['rejected at submit', rejected],
    ['admission refusals (retried)', refusals],
    ['elapsed', `${elapsedSeconds.toFixed(1)} s`],
    ['throughput', `${(settled / elapsedSeconds).toFixed(1)} intents/s`],
  );
  console.log(summary.toString());
  console.log(
    `  Web UI: ${webUiUrl}/namespaces/default/workflows?query=IntentStatus%3D%22confirmed%22`,
  );
}

async function printLedger(database: Database): Promise<void> {
  const ledger = table(
    ['tenant', 'chain', 'asset', 'available', 'held'],
    ['left', 'right', 'left', 'right', 'right'],
  );
  for (const tenant of tenants) {
    for (const book of await balancesOf(database, tenant.id)) {
      const inUnits = (amount: bigint) => formatUnits(amount, book.decimals);
      const asset = book.asset === 'native' ? 'ETH' : book.asset;
      ledger.push([tenant.id, book.chainId, asset, inUnits(book.available), inUnits(book.held)]);
    }
  }
  console.log(ledger.toString());
}

/**
 * The treasury's top-ups of the wallets the payments drew down: after the next sweep has looked,
 * once every top-up has ended (a minute at most).
 */
async function printTopUps(
  database: Database,
  sweepMs: number,
  inUnits: AmountInUnits,
): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, sweepMs + 1000));
  const topUps = () =>
    database.kysely
      .selectFrom('intents')
      .select(['id', 'chain_id', 'from_address', 'to_address', 'asset', 'amount', 'status'])
      .where('tenant_id', '=', operatorOwner)
      // A deposit sweep is the operators' too: it is shown in the deposit's trail.
      .where('call_data', 'is', null)
      .orderBy('id')
      .execute();
  // Shown as they are after a minute, ended or not.
  await waitFor(
    async () => (await topUps()).every((row) => terminalStatuses.has(row.status)),
    'the top-ups to end',
  ).catch(() => undefined);
  const rows = await topUps();
  if (rows.length === 0) return;
  const shown = table(
    ['top-up', 'chain', 'from treasury', 'to hot wallet', 'amount', 'status'],
    ['left', 'right', 'left', 'left', 'right', 'left'],
  );
  for (const row of rows) {
    shown.push([
      row.id,
      row.chain_id,
      row.from_address ?? '',
      row.to_address,
      inUnits(row.chain_id, row.asset, row.amount),
      row.status,
    ]);
  }
  console.log(shown.toString());
}

/** Submits like a well-behaved client: a refusal for now is retried after the time it asks for. */
async function submitUntilAdmitted(
  api: RelayerApiClient,
  body: SubmitBody,
  idempotencyKey: string,
  onRefusal: () => void,
): Promise<void> {
  for (;;) {
    try {
      await api.submit(body, idempotencyKey);
      return;
    } catch (error) {
      const retryable = error instanceof ApiError && [429, 503].includes(error.status);
      if (!retryable || error.body.code === 'closed') throw error;
      onRefusal();
      await new Promise((r) => setTimeout(r, (error.retryAfterSeconds ?? 0.25) * 1000));
    }
  }
}

main().catch(exitOnError);

import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { table } from '../../cli/table';
import { BatchMode, batchWorkflowId } from '../../domain/batch';
import { IntentStatus, terminalStatuses } from '../../domain/intent';
import { batchOutcomeCounts } from '../../store/batch-results';
import { submitBatch } from '../../service/submit-batch';
import { submitIntent } from '../../service/submit-intent';
import { getIntent } from '../../store/intents';
import { createTenant, deposit } from '../../store/ledger';
import { installRuntime } from '../../workers/runtime';
import { writeWorkflowBundle } from '../../workers/workflow-code';
import { startLocalWorld, type LocalWorld } from '../../test/harness/stack/local-world';
import { startDevServer } from '../../test/harness/stack/temporal-servers';
import { spawnBenchWorker } from './bench-worker';
import { latencyParts, latencySplit, type LatencyPart } from './latency-split';
import { percentile } from './rates';

/**
 * `npm run bench:fairness`: tenant A's bulk batch running while tenant B submits one urgent
 * intent a second; B's latency (submit to confirmed, from the intents' own rows) p50 and p99, and
 * each ÷ B's alone, in one run, at each quota: B alone, then beside A's batch with the relayer's
 * ordering off (a dev server without the fair matcher, the permit line in arrival order) and on
 * (the fair matcher, the line by priority and weight). Printed, never asserted; with where B's
 * time went, read from its workflows' histories.
 */

const items = Number(process.env.BENCH_FAIR_ITEMS ?? 5000);
const seconds = Number(process.env.BENCH_FAIR_SECONDS ?? 60);
const quotas = (process.env.BENCH_FAIR_QUOTA ?? '20,8').split(',').map(Number);
const concurrency = Number(process.env.BENCH_FAIR_CONCURRENCY ?? 200);

type Arm = 'alone' | 'off' | 'on';

interface Row {
  arm: Arm;
  perSecond: number;
  latenciesMs: number[];
  /** Where each of B's intents spent its time (latency-split.ts). */
  splits: Record<LatencyPart, number>[];
  /** A's items confirmed while B's intents ran. */
  batchConfirmed: number;
}

/** One urgent intent of B a second for `seconds`; their latencies once all are confirmed. */
async function urgentTrickle(
  world: LocalWorld,
  deps: { database: typeof world.database; client: Client; taskQueue: string },
): Promise<{ ids: string[]; latencies: number[] }> {
  const ids: string[] = [];
  for (let i = 0; i < seconds; i++) {
    const next = Date.now() + 1000;
    const { intent } = await submitIntent(deps, {
      tenantId: 'rushed',
      chainId: world.anvil.chainId,
      to: privateKeyToAccount(generatePrivateKey()).address,
      amount: '1000',
      priority: 'urgent',
    });
    ids.push(intent.id);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
  }
  const latencies: number[] = [];
  for (const id of ids) {
    for (;;) {
      const intent = await getIntent(world.database.kysely, id);
      if (intent.status === IntentStatus.confirmed) {
        latencies.push(intent.updatedAt.getTime() - intent.createdAt.getTime());
        break;
      }
      if (terminalStatuses.has(intent.status)) {
        throw new Error(`B's intent ${id} ended ${intent.status}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { ids, latencies };
}

async function measure(arm: Arm, perSecond: number, bundlePath: string): Promise<Row> {
  const server = await startDevServer({ settings: arm === 'on' ? 'tuned' : 'fifo' });
  const world = await startLocalWorld({ temporalAddress: server.address, wallets: 8 });
  const connection = await Connection.connect({ address: server.address });
  const taskQueue = `bench-fair-${randomUUID()}`;
  const now = new Date();
  for (const tenant of ['bulky', 'rushed']) {
    await createTenant(world.database, { id: tenant, name: tenant }, now);
    await deposit(world.database, tenant, parseEther('1000'), now, world.nativeBook);
  }
  // The batch's items and B's intents are open at once.
  const worker = await spawnBenchWorker(world, {
    taskQueue,
    bundlePath,
    perSecond,
    openIntents: items * 2,
    env: { THROTTLE_LINE_ORDER: arm === 'off' ? 'arrival' : 'priority' },
  });
  try {
    const client = new Client({ connection });
    const deps = { database: world.database, client, taskQueue };
    let batchId: string | undefined;
    if (arm !== 'alone') {
      const { batch } = await submitBatch(
        deps,
        'bulky',
        {
          mode: BatchMode.collectAll,
          concurrency,
          items: Array.from({ length: items }, (_, i) => ({
            chainId: world.anvil.chainId,
            to: privateKeyToAccount(generatePrivateKey()).address as Hex,
            amount: 1000n + BigInt(i),
          })),
        },
        `bench-fair-${arm}`,
      );
      batchId = batch.id;
      // B comes once A's batch fills its slots.
      await new Promise((resolve) => setTimeout(resolve, 5000));
    }
    const { ids, latencies: latenciesMs } = await urgentTrickle(world, deps);
    const batchConfirmed = batchId
      ? ((await batchOutcomeCounts(world.database.kysely, batchId)).confirmed ?? 0)
      : 0;
    if (batchId) {
      await client.workflow
        .getHandle(batchWorkflowId(batchId))
        .terminate('bench over')
        .catch(() => undefined);
    }
    const splits = [];
    for (const id of ids) splits.push(await latencySplit(client, id));
    return { arm, perSecond, latenciesMs, splits, batchConfirmed };
  } finally {
    worker.signal('SIGKILL');
    await worker.exited;
    await connection.close();
    await world.stop();
    await server.teardown();
  }
}

async function main(): Promise<void> {
  installRuntime('WARN');
  const dir = mkdtempSync(join(tmpdir(), 'relayer-bench-fair-'));
  const bundlePath = join(dir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundlePath);
  const rows: Row[] = [];
  try {
    for (const perSecond of quotas) {
      for (const arm of ['alone', 'off', 'on'] as const) {
        console.log(
          `• Q ${perSecond}/s, ${arm}: B one urgent intent a second for ${seconds} s` +
            (arm === 'alone' ? '' : `, beside A's batch of ${items} (concurrency ${concurrency})`),
        );
        rows.push(await measure(arm, perSecond, bundlePath));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const p = (row: Row, q: number) => percentile(sorted(row.latenciesMs), q);
  const aloneOf = (row: Row) =>
    rows.find((r) => r.perSecond === row.perSecond && r.arm === 'alone')!;
  const summary = table(
    ['Q/s', 'arm', "B's", 'p50 ms', 'p99 ms', 'p50 ÷ alone', 'p99 ÷ alone', "A's confirmed"],
    Array<'right'>(8).fill('right'),
  );
  const split = table(
    ['Q/s', 'arm', 'of B', ...latencyParts],
    Array<'right'>(3 + latencyParts.length).fill('right'),
  );
  for (const row of rows) {
    const alone = aloneOf(row);
    summary.push([
      row.perSecond,
      row.arm,
      row.latenciesMs.length,
      p(row, 0.5).toFixed(0),
      p(row, 0.99).toFixed(0),
      (p(row, 0.5) / p(alone, 0.5)).toFixed(2),
      (p(row, 0.99) / p(alone, 0.99)).toFixed(2),
      row.batchConfirmed,
    ]);
    const total = (split: Record<LatencyPart, number>) =>
      latencyParts.reduce((sum, part) => sum + split[part], 0);
    const slowest = row.splits.reduce((a, b) => (total(b) > total(a) ? b : a));
    split.push(
      [
        row.perSecond,
        row.arm,
        'p50',
        ...latencyParts.map((part) =>
          percentile(sorted(row.splits.map((s) => s[part])), 0.5).toFixed(0),
        ),
      ],
      [row.perSecond, row.arm, 'slowest', ...latencyParts.map((part) => slowest[part].toFixed(0))],
    );
  }
  console.log(summary.toString());
  console.log(
    "B's workflows, ms: the median of each part, and the slowest workflow's (dev/bench/latency-split.ts)",
  );
  console.log(split.toString());
  console.log(
    'one worker process (pool 32, 64 permits), 8 wallets chosen at signing\n' +
      "off: the dev server's tuned settings without the fair matcher, THROTTLE_LINE_ORDER=arrival;\n" +
      'on: with it (matching.useNewMatcher, matching.enableFairness; priority key urgent 1, bulk 5;\n' +
      'the tenant as the fairness key), the permit line by priority and weight',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

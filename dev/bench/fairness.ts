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
import { startLocalWorld, type LocalWorld } from '../stack/local-world';
import { startDevServer } from '../stack/temporal-servers';
import { spawnBenchWorker } from './bench-worker';
import { percentile } from './rates';

/**
 * `npm run bench:fairness`: tenant A's bulk batch running while tenant B submits one urgent
 * intent a second; B's latency (submit to confirmed, from the intents' own rows) p50 and p99, and
 * each ÷ B's alone, in one run: B alone, then beside A's batch on a dev server without the fair
 * matcher (Temporal's order off) and with it (priority and fairness on). Printed, never asserted.
 */

const items = Number(process.env.BENCH_FAIR_ITEMS ?? 5000);
const seconds = Number(process.env.BENCH_FAIR_SECONDS ?? 60);
const perSecond = Number(process.env.BENCH_FAIR_QUOTA ?? 20);
const concurrency = Number(process.env.BENCH_FAIR_CONCURRENCY ?? 200);

type Arm = 'alone' | 'off' | 'on';

interface Row {
  arm: Arm;
  latenciesMs: number[];
  /** A's items confirmed while B's intents ran. */
  batchConfirmed: number;
}

/** One urgent intent of B a second for `seconds`; their latencies once all are confirmed. */
async function urgentTrickle(
  world: LocalWorld,
  deps: { database: typeof world.database; client: Client; taskQueue: string },
): Promise<number[]> {
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
  return latencies;
}

async function measure(arm: Arm, bundlePath: string): Promise<Row> {
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
    const latenciesMs = await urgentTrickle(world, deps);
    const batchConfirmed = batchId
      ? ((await batchOutcomeCounts(world.database.kysely, batchId)).confirmed ?? 0)
      : 0;
    if (batchId) {
      await client.workflow
        .getHandle(batchWorkflowId(batchId))
        .terminate('bench over')
        .catch(() => undefined);
    }
    return { arm, latenciesMs, batchConfirmed };
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
    for (const arm of ['alone', 'off', 'on'] as const) {
      console.log(
        `• ${arm}: B one urgent intent a second for ${seconds} s` +
          (arm === 'alone' ? '' : `, beside A's batch of ${items} (concurrency ${concurrency})`),
      );
      rows.push(await measure(arm, bundlePath));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const alone = rows[0]!;
  const p = (row: Row, q: number) =>
    percentile(
      [...row.latenciesMs].sort((a, b) => a - b),
      q,
    );
  const summary = table(
    ['arm', "B's intents", 'p50 ms', 'p99 ms', 'p50 ÷ alone', 'p99 ÷ alone', "A's confirmed"],
    Array<'right'>(7).fill('right'),
  );
  for (const row of rows) {
    summary.push([
      row.arm,
      row.latenciesMs.length,
      p(row, 0.5).toFixed(0),
      p(row, 0.99).toFixed(0),
      (p(row, 0.5) / p(alone, 0.5)).toFixed(2),
      (p(row, 0.99) / p(alone, 0.99)).toFixed(2),
      row.batchConfirmed,
    ]);
  }
  console.log(summary.toString());
  console.log(
    `quota ${perSecond}/s, one worker process (pool 32, 64 permits), 8 wallets chosen at signing\n` +
      "off: the dev server's tuned settings without the fair matcher; on: with it (matching.useNewMatcher,\n" +
      'matching.enableFairness; priority key urgent 1, bulk 5; the tenant as the fairness key)',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

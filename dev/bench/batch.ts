import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { batchOutcomeCounts, mostItemsActiveAtOnce } from '../../store/batch-results';
import { findBatch } from '../../store/batches';
import { table } from '../../cli/table';
import { BatchMode, batchWorkflowId } from '../../domain/batch';
import { submitBatch } from '../../service/submit-batch';
import { startLocalWorld } from '../../test/harness/stack/local-world';
import { maxConcurrent } from '../../test/harness/stack/rpc-proxy';
import { spawnBenchWorker } from './bench-worker';
import { withBenchStack } from './bench-stack';
import { steadyRate } from './rates';
import { handoffPhases, walletHandoff, type HandoffBreakdown } from './wallet-handoff';

/**
 * `npm run bench:batch`: one batch of 1,000 payouts per row, measured against the configured
 * quota: items ended per second from submit to the last one, and sends per second at an RPC
 * proxy in front of the node. Items of one wallet sign in input order (their nonces follow the
 * input), so the number of sending wallets bounds a batch too: the rows put one wallet and
 * several side by side, items pinned to wallets round-robin (`pinned`) or naming none, the
 * relayer choosing at signing (`chosen`; BENCH_BATCH_ASSIGN). Printed, never asserted.
 */

const items = Number(process.env.BENCH_BATCH_ITEMS ?? 1000);
const perSecond = Number(process.env.BENCH_BATCH_QUOTA ?? 20);
const concurrency = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 32);
const walletCounts = (process.env.BENCH_BATCH_WALLETS ?? '8,1').split(',').map(Number);
type Assignment = 'pinned' | 'chosen';
const assignments = (process.env.BENCH_BATCH_ASSIGN ?? 'pinned,chosen').split(',') as Assignment[];
for (const assignment of assignments) {
  if (assignment !== 'pinned' && assignment !== 'chosen') {
    throw new Error(`BENCH_BATCH_ASSIGN: "${assignment}" is not pinned or chosen`);
  }
}

interface Row {
  wallets: number;
  assignment: Assignment;
  itemsPerSecond: number;
  sendsPerSecond: number;
  maxInFlight: number;
  mostActive: number;
  /** Workflow runs of the batch (continue-as-new) and the longest history among them. */
  runs: number;
  maxEventsPerRun: number;
  confirmed: number;
  wallSeconds: number;
  /** Pinned rows: where the time goes between two signatures of one wallet. */
  handoff?: HandoffBreakdown;
}

async function measure(
  wallets: number,
  assignment: Assignment,
  temporalAddress: string,
  bundlePath: string,
): Promise<Row> {
  const world = await startLocalWorld({
    temporalAddress,
    proxy: true,
    wallets,
    tenants: { acme: '10000' },
  });
  const connection = await Connection.connect({ address: temporalAddress });
  const taskQueue = `bench-batch-${randomUUID()}`;
  const worker = await spawnBenchWorker(world, {
    taskQueue,
    bundlePath,
    perSecond,
    openIntents: items,
  });
  try {
    const client = new Client({ connection });
    const started = Date.now();
    const { batch } = await submitBatch(
      { database: world.database, client, taskQueue },
      'acme',
      {
        mode: BatchMode.collectAll,
        concurrency,
        items: Array.from({ length: items }, (_, i) => ({
          chainId: world.anvil.chainId,
          ...(assignment === 'pinned' && { from: world.wallets[i % wallets]! }),
          to: privateKeyToAccount(generatePrivateKey()).address,
          amount: 1000n + BigInt(i),
        })),
      },
      `bench-${wallets}-${assignment}`,
    );
    let reportedAt = Date.now();
    while ((await findBatch(world.database.kysely, { id: batch.id }))?.status === 'running') {
      if (Date.now() - reportedAt > 5000) {
        reportedAt = Date.now();
        const counts = await batchOutcomeCounts(world.database.kysely, batch.id);
        console.log(`  ${wallets} wallet(s): ${counts.confirmed ?? 0}/${items} confirmed`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const wallSeconds = (Date.now() - started) / 1000;
    const counts = await batchOutcomeCounts(world.database.kysely, batch.id);
    let runs = 0;
    let maxEventsPerRun = 0;
    const executions = client.workflow.list({
      query: `WorkflowId = "${batchWorkflowId(batch.id)}"`,
    });
    for await (const execution of executions) {
      runs++;
      const history = await client.workflow
        .getHandle(execution.workflowId, execution.runId)
        .fetchHistory();
      maxEventsPerRun = Math.max(maxEventsPerRun, history.events?.length ?? 0);
    }
    const sends = world.proxy!.callsOf('eth_sendRawTransaction');
    const handoff =
      assignment === 'pinned' ? await walletHandoff(world, client, batch.id) : undefined;
    return {
      wallets,
      assignment,
      itemsPerSecond: items / wallSeconds,
      sendsPerSecond: steadyRate(sends),
      maxInFlight: maxConcurrent(sends),
      mostActive: await mostItemsActiveAtOnce(world.database.kysely, batch.id),
      runs,
      maxEventsPerRun,
      confirmed: counts.confirmed ?? 0,
      wallSeconds,
      ...(handoff && { handoff }),
    };
  } finally {
    worker.signal('SIGTERM');
    await worker.exited;
    await connection.close();
    await world.stop();
  }
}

async function main(): Promise<void> {
  const rows = await withBenchStack(async ({ temporalAddress, bundlePath }) => {
    const measured: Row[] = [];
    for (const wallets of walletCounts) {
      // With one wallet, choosing is pinning.
      for (const assignment of wallets === 1 ? assignments.slice(0, 1) : assignments) {
        console.log(
          `• batch of ${items} items, ${wallets} sending wallet(s) ${assignment}, concurrency ${concurrency}`,
        );
        measured.push(await measure(wallets, assignment, temporalAddress, bundlePath));
      }
    }
    return measured;
  });
  const summary = table(
    [
      'items',
      'wallets',
      'from',
      'concurrency (most active)',
      'quota',
      'items/s',
      'items/s ÷ quota',
      'sends/s (steady) ÷ quota',
      'runs (max events)',
      'confirmed',
      'wall',
    ],
    Array<'right'>(11).fill('right'),
  );
  for (const row of rows) {
    summary.push([
      items,
      row.wallets,
      row.assignment,
      `${concurrency} (${row.mostActive})`,
      `${perSecond}/s`,
      row.itemsPerSecond.toFixed(2),
      (row.itemsPerSecond / perSecond).toFixed(3),
      (row.sendsPerSecond / perSecond).toFixed(3),
      `${row.runs} (${row.maxEventsPerRun})`,
      row.confirmed,
      `${row.wallSeconds.toFixed(1)} s`,
    ]);
  }
  console.log(summary.toString());
  console.log(
    'items/s: items ended per second, submit to last; most active: from the items’ recorded start and end\n' +
      'one worker process, pool 32, 64 permits; a wallet’s items sign in input order, each in its turn\n' +
      'from: pinned, items name wallets round-robin; chosen, items name none and the relayer chooses when it signs\n' +
      'runs: the batch continues as new every 500 items; max events: the longest run history (limit 51,200)',
  );
  const handoffs = rows.filter((row) => row.handoff);
  if (handoffs.length > 0) {
    const breakdown = table(
      ['wallets', 'samples', ...handoffPhases, 'signature to signature', 'events per item'],
      Array<'right'>(handoffPhases.length + 4).fill('right'),
    );
    for (const { wallets, handoff } of handoffs) {
      breakdown.push([
        wallets,
        handoff!.samples,
        ...handoffPhases.map((phase) => `${handoff!.phases[phase].toFixed(0)} ms`),
        `${handoff!.total.toFixed(0)} ms`,
        handoff!.events,
      ]);
    }
    console.log('\nA wallet’s turn handed on, medians over consecutive items of its first wallet:');
    console.log(breakdown.toString());
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

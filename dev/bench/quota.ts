import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { table } from '../../cli/table';
import { submitIntent } from '../../service/submit-intent';
import { settledCount, waitUntilSettled } from '../../test/harness/wait-until-settled';
import { startLocalWorld, type LocalWorld } from '../../test/harness/stack/local-world';
import { maxConcurrent, maxInWindow } from '../../test/harness/stack/rpc-proxy';
import { withBenchStack } from './bench-stack';
import { percentile, steadyRate } from './rates';
import { spawnWorker } from '../../test/harness/stack/worker-process';

/**
 * `npm run bench`: how close the relayer gets to its configured RPC quota. For each quota it
 * submits several seconds' worth of intents at once and measures, at an RPC proxy in front of
 * the node (what a provider would see), the sends per second in the steady part of the run.
 * Printed as ratios measured side by side in one run; never asserted (these machines are noisy).
 */

interface Cell {
  label: string;
  perSecond: number;
  burst: number;
  processes: number;
  redis: boolean;
}

interface Measurement {
  cell: Cell;
  intents: number;
  sendsPerSecond: number;
  maxInOneSecond: number;
  maxInFlight: number;
  p50LatencyMs: number;
  p99LatencyMs: number;
  wallSeconds: number;
}

const secondsOfWork = Number(process.env.BENCH_SECONDS ?? 8);
const quotas = (process.env.BENCH_QUOTAS ?? '5,10,20,50').split(',').map(Number);
/** Bucket sizes to measure; `rate` means one second's worth (burst = perSecond). */
const bursts = (process.env.BENCH_BURSTS ?? '1,rate').split(',');
const burstFor = (burst: string, perSecond: number): number =>
  burst === 'rate' ? perSecond : Number(burst);

/** Several seconds of work at the quota, so the steady part dominates. */
const intentsFor = (cell: Cell): number => Math.max(40, cell.perSecond * secondsOfWork);

async function measure(
  cell: Cell,
  temporalAddress: string,
  bundlePath: string,
): Promise<Measurement> {
  const world = await startLocalWorld({
    temporalAddress,
    proxy: true,
    redis: cell.redis,
    wallets: 4,
    tenants: { acme: '1000', globex: '1000' },
  });
  const connection = await Connection.connect({ address: temporalAddress });
  const taskQueue = `bench-${randomUUID()}`;
  try {
    const env = world.env({
      TASK_QUEUE: taskQueue,
      WORKFLOW_BUNDLE_PATH: bundlePath,
      POOL_WIDTH: '32',
      THROTTLE_MAX_IN_FLIGHT: '64',
      THROTTLE_PER_SECOND: String(cell.perSecond),
      THROTTLE_BURST: String(cell.burst),
      THROTTLE_MAX_WAIT_MS: '30000',
    });
    const workers = await Promise.all(
      Array.from({ length: cell.processes }, () => spawnWorker(env)),
    );
    const intents = intentsFor(cell);
    const started = Date.now();
    await submitAll(world, new Client({ connection }), taskQueue, intents);
    let reportedAt = 0;
    await waitUntilSettled(world.database, intents, {
      pollMs: 100,
      onProgress: (counts) => {
        if (Date.now() - reportedAt < 2000) return;
        reportedAt = Date.now();
        console.log(`  ${cell.label}: ${settledCount(counts)}/${intents} settled`);
      },
    });
    const wallSeconds = (Date.now() - started) / 1000;
    for (const worker of workers) worker.signal('SIGTERM');
    await Promise.all(workers.map((worker) => worker.exited));

    const sends = world.proxy!.callsOf('eth_sendRawTransaction');
    const latencies = await confirmLatencies(world);
    return {
      cell,
      intents,
      sendsPerSecond: steadyRate(sends),
      maxInOneSecond: maxInWindow(sends, 1000),
      maxInFlight: maxConcurrent(sends),
      p50LatencyMs: percentile(latencies, 0.5),
      p99LatencyMs: percentile(latencies, 0.99),
      wallSeconds,
    };
  } finally {
    await connection.close();
    await world.stop();
  }
}

async function submitAll(
  world: LocalWorld,
  client: Client,
  taskQueue: string,
  count: number,
): Promise<void> {
  const batch = 20;
  for (let first = 0; first < count; first += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - first) }, (_, k) =>
        submitIntent(
          { database: world.database, client, taskQueue },
          {
            tenantId: (first + k) % 2 === 0 ? 'acme' : 'globex',
            chainId: world.anvil.chainId,
            from: world.wallets[(first + k) % world.wallets.length],
            to: privateKeyToAccount(generatePrivateKey()).address,
            amount: parseEther('0.001').toString(),
          },
        ),
      ),
    );
  }
}

async function confirmLatencies(world: LocalWorld): Promise<number[]> {
  const rows = await world.database.kysely
    .selectFrom('intents')
    .select(['created_at', 'updated_at'])
    .execute();
  return rows
    .map((r) => new Date(r.updated_at).getTime() - new Date(r.created_at).getTime())
    .sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const cells: Cell[] = quotas.flatMap((perSecond) =>
    bursts
      .map((spec) => burstFor(spec, perSecond))
      .flatMap((burst) => [
        {
          label: `${perSecond}/s burst ${burst}, 1 process`,
          perSecond,
          burst,
          processes: 1,
          redis: false,
        },
        {
          label: `${perSecond}/s burst ${burst}, 2 processes on Redis`,
          perSecond,
          burst,
          processes: 2,
          redis: true,
        },
      ]),
  );
  const results = await withBenchStack(async ({ temporalAddress, bundlePath }) => {
    const measured: Measurement[] = [];
    for (const cell of cells) {
      console.log(`• ${cell.label}: ${intentsFor(cell)} intents`);
      measured.push(await measure(cell, temporalAddress, bundlePath));
    }
    return measured;
  });

  const summary = table(
    [
      'quota',
      'burst',
      'processes',
      'intents',
      'sends/s (steady)',
      'sends/s ÷ quota',
      'max in any 1 s (bound)',
      'max in flight',
      'p50 / p99 submit→confirmed',
      'wall',
    ],
    ['right', 'right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  for (const m of results) {
    summary.push([
      `${m.cell.perSecond}/s`,
      m.cell.burst,
      m.cell.redis ? `${m.cell.processes}, Redis quota` : `${m.cell.processes}`,
      m.intents,
      m.sendsPerSecond.toFixed(2),
      (m.sendsPerSecond / m.cell.perSecond).toFixed(3),
      `${m.maxInOneSecond} (${m.cell.perSecond + m.cell.burst - 1})`,
      m.maxInFlight,
      `${(m.p50LatencyMs / 1000).toFixed(1)} s / ${(m.p99LatencyMs / 1000).toFixed(1)} s`,
      `${m.wallSeconds.toFixed(1)} s`,
    ]);
  }
  console.log(summary.toString());
  console.log(
    'sends/s ÷ quota: sends the node saw per second, 10th to 90th percentile send; bound: perSecond + burst − 1\n' +
      'pool 32, 64 permits, one send per intent; latency includes the queue behind the quota',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

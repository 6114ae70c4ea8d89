import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import { submitIntent } from '../../service/submit-intent';
import { waitUntilSettled } from '../../test/harness/wait-until-settled';
import { minedTransactions } from '../../test/harness/stack/chain-truth';
import { startLocalWorld, type LocalWorld } from '../../test/harness/stack/local-world';
import { startDevServer } from '../../test/harness/stack/temporal-servers';
import { waitFor } from '../../test/harness/stack/wait-for';
import {
  spawnWorker,
  stopSummary,
  type StopSummary,
  type WorkerProcess,
} from '../../test/harness/stack/worker-process';
import { installRuntime } from '../../workers/runtime';

export type DrainVariant = 'graceful' | 'drain-timeout';

export interface IntentRow {
  id: string;
  status: string;
  version: number;
  txHash: string | null;
}

export interface PoolDrainReport {
  variant: DrainVariant;
  intents: number;
  /** Intents whose sends were in flight when the first worker was told to stop. */
  inFlightAtStop: string[];
  firstWorker: StopSummary;
  /** The intents as the first worker left them. */
  afterStop: IntentRow[];
  /** Transactions mined when the first worker had exited. */
  minedAfterStop: number;
  /** Ledger holds that existed when the first worker had exited. */
  holdsAfterStop: number;
  secondWorker: StopSummary;
  final: IntentRow[];
  /** Mined transactions per intent id at the end (exactly one each when all is well). */
  minedPerIntent: Record<string, number>;
  log: string[];
}

const sendMethod = 'eth_sendRawTransaction';

/**
 * The seed's Example_poolDrain on the real stack: 6 intents, a worker process with a pool of 2
 * and at most 2 sends in flight; while 2 sends are in flight it gets SIGTERM.
 *  - graceful: sends take 2 s, the drain timeout is 20 s: both finish, the other 4 intents are
 *    never touched, and a second worker process completes them.
 *  - drain-timeout: sends take 60 s, the drain timeout is 2 s: both are abandoned (counted), the
 *    second worker re-sends the same signed bytes and each intent still has exactly one tx.
 */
export async function runPoolDrain(
  variant: DrainVariant,
  temporalAddress: string,
  print: (line: string) => void = () => {},
): Promise<PoolDrainReport> {
  const log: string[] = [];
  const say = (line: string) => {
    log.push(line);
    print(line);
  };
  const world = await startLocalWorld({ temporalAddress, proxy: true, tenants: { acme: '10' } });
  const connection = await Connection.connect({ address: temporalAddress });
  const workers: WorkerProcess[] = [];
  const spawn = async (env: Record<string, string>) => {
    const worker = await spawnWorker(env);
    workers.push(worker);
    return worker;
  };
  try {
    const proxy = world.proxy!;
    const taskQueue = `pool-drain-${randomUUID()}`;
    const sendMs = variant === 'graceful' ? 2_000 : 60_000;
    const drainMs = variant === 'graceful' ? 20_000 : 2_000;
    proxy.holdResponses(sendMethod, sendMs);
    const workerEnv = world.env({
      TASK_QUEUE: taskQueue,
      POOL_WIDTH: '2',
      THROTTLE_MAX_IN_FLIGHT: '2',
      THROTTLE_PER_SECOND: '100',
      THROTTLE_BURST: '100',
      DRAIN_TIMEOUT_MS: String(drainMs),
    });
    const startBlock = await world.testClient.getBlockNumber({ cacheTime: 0 });

    const first = await spawn(workerEnv);
    const client = new Client({ connection });
    const count = 6;
    for (let i = 0; i < count; i++) {
      await submitIntent(
        { database: world.database, client, taskQueue },
        {
          tenantId: 'acme',
          chainId: world.anvil.chainId,
          from: world.wallets[0],
          to: world.wallets[1],
          amount: parseEther('0.01').toString(),
        },
      );
    }
    say(
      `enqueue ${count} intent(s); pool of 2 slots, 2 sends in flight at most, each send takes ${sendMs / 1000} s`,
    );

    await waitFor(() => proxy.inFlight(sendMethod) === 2, 'two sends in flight', 30_000);
    const inFlightHashes = proxy
      .callsOf(sendMethod)
      .filter((call) => call.endedAt === undefined)
      .map((call) => call.txHash);
    const inFlightAtStop = (await rows(world))
      .filter((r) => inFlightHashes.includes(r.txHash as never))
      .map((r) => r.id);
    say(`send    [${inFlightAtStop.join(' ')}] in flight`);
    first.signal('SIGTERM');
    say(
      `stop    SIGTERM: stop taking work, let the in-flight sends finish (drain timeout ${drainMs / 1000} s)`,
    );
    await first.exited;
    const firstWorker = stopSummary(first.output());
    if (!firstWorker) throw new Error(`first worker printed no summary:\n${first.output()}`);
    say(`pool    stopped: ${summaryText(firstWorker)}`);

    const afterStop = await rows(world);
    const untouched = afterStop.filter((r) => r.status === 'authorized' && r.version === 1).length;
    say(`queue   ${untouched} intent(s) untouched, waiting for the next worker`);
    afterStop.forEach((r) => say(formatRow(r)));
    const minedAfterStop = (await minedTransactions(world, startBlock)).length;
    const holdsAfterStop = (
      await world.database.kysely.selectFrom('holds').select('intent_id').execute()
    ).length;

    proxy.holdResponses(sendMethod, 0);
    const second = await spawn(workerEnv);
    await waitUntilSettled(world.database, count, { timeoutMs: 120_000 });
    second.signal('SIGTERM');
    await second.exited;
    const secondWorker = stopSummary(second.output());
    if (!secondWorker) throw new Error(`second worker printed no summary:\n${second.output()}`);
    say(`next worker: ${summaryText(secondWorker)}`);
    const final = await rows(world);
    final.forEach((r) => say(formatRow(r)));

    const minedPerIntent: Record<string, number> = Object.fromEntries(final.map((r) => [r.id, 0]));
    const byHash = new Map(final.map((r) => [r.txHash, r.id]));
    for (const tx of await minedTransactions(world, startBlock)) {
      const id = byHash.get(tx.hash);
      if (id) minedPerIntent[id]! += 1;
    }
    return {
      variant,
      intents: count,
      inFlightAtStop,
      firstWorker,
      afterStop,
      minedAfterStop,
      holdsAfterStop,
      secondWorker,
      final,
      minedPerIntent,
      log,
    };
  } finally {
    // Only after a failure is one still running; it must not outlive the run.
    for (const worker of workers) if (worker.child.exitCode === null) worker.signal('SIGKILL');
    await connection.close();
    await world.stop();
  }
}

const summaryText = (s: StopSummary) =>
  `sent ${s.sent}, retry ${s.retry}, abandoned ${s.abandoned}, panics ${s.panics}`;

const formatRow = (r: IntentRow) =>
  `${r.id} ${r.status.padEnd(12)} v${r.version} tx=${r.txHash ? `${r.txHash.slice(0, 10)}…` : ''}`;

async function rows(world: LocalWorld): Promise<IntentRow[]> {
  const found = await world.database.kysely
    .selectFrom('intents')
    .select(['id', 'status', 'version', 'tx_hash'])
    .orderBy('id')
    .execute();
  return found.map((r) => ({
    id: r.id,
    status: r.status,
    version: Number(r.version),
    txHash: r.tx_hash,
  }));
}

if (require.main === module) {
  const variant: DrainVariant = process.argv.includes('--drain-timeout')
    ? 'drain-timeout'
    : 'graceful';
  installRuntime('WARN');
  (async () => {
    const server = await startDevServer();
    try {
      await runPoolDrain(variant, server.address, console.log);
    } finally {
      await server.teardown();
    }
  })().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

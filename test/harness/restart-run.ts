import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { freePort } from './stack/free-port';
import { startDevServer } from './stack/temporal-servers';
import type { WorkerProcess } from './stack/worker-process';
import { waitFor } from './stack/wait-for';
import { seededRandom, type FaultSettings } from './fault-settings';
import { expectInvariants } from './invariants';
import { confirmedCount, submitMany, waitUntilSettled } from './intents';
import type { WorldInTest } from './test-world';
import type { LocalWorld } from './stack/local-world';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';

/**
 * Every intent not yet ended, and what its workflow waits on as the server tells it (pending
 * activities with their attempts and last failures, a pending workflow task): a run that stopped
 * making progress says where.
 */
async function openIntentsAsTemporalSees(world: LocalWorld, server: TestWorkflowEnvironment) {
  const open = await world.database.kysely
    .selectFrom('intents')
    .select(['id', 'status', 'updated_at'])
    .where('status', 'not in', ['confirmed', 'failed', 'cancelled'])
    .execute();
  return Promise.all(
    open.map(async (intent) => {
      const workflow = server.client.workflow.getHandle(paymentIntentWorkflowId(intent.id));
      const seen = await workflow.describe().then(
        ({ status, raw }) => ({
          workflowStatus: status.name,
          pendingActivities: raw.pendingActivities?.map((activity) => ({
            type: activity.activityType?.name,
            state: activity.state,
            attempt: activity.attempt,
            lastFailure: activity.lastFailure?.message,
            lastWorker: activity.lastWorkerIdentity,
          })),
          pendingWorkflowTask: raw.pendingWorkflowTask && {
            state: raw.pendingWorkflowTask.state,
            attempt: raw.pendingWorkflowTask.attempt,
          },
        }),
        (error: unknown) => ({ describeFailed: String(error) }),
      );
      return { ...intent, ...seen };
    }),
  );
}

/**
 * Each worker alive or its exit, with its last error lines, and the open intents counted by
 * status and by what their workflows wait on.
 */
async function whereItStood(workers: readonly WorkerProcess[], open: unknown): Promise<string> {
  const lines = await Promise.all(
    workers.map(async (worker, i) => {
      const exit = await Promise.race([worker.exited, Promise.resolve('alive')]);
      const errors = worker
        .output()
        .split('\n')
        .filter((line) => /\bERROR\b|Error:|panic|fatal/.test(line))
        .slice(-5)
        .map((line) => `    ${line.slice(0, 300)}`);
      return [`  worker ${i + 1}: ${exit}`, ...errors].join('\n');
    }),
  );
  const counts = new Map<string, number>();
  for (const intent of Array.isArray(open) ? (open as Record<string, unknown>[]) : []) {
    const pending = (intent.pendingActivities as { type?: string }[] | undefined) ?? [];
    const waits = pending.map((activity) => activity.type).join('+') || 'no activity';
    const key = `${String(intent.status)}, workflow ${String(intent.workflowStatus)} (${waits})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const intents = [...counts].map(([key, count]) => `  ${count} × ${key}`);
  return ['where it stood:', ...lines, ...intents].join('\n');
}

/** The world a restart run needs: a proxy to take the RPC endpoint down, three wallets. */
export const restartWorld = { proxy: true, wallets: 3 };
const deposits = { acme: parseEther('100'), globex: parseEther('100') };

/**
 * Two workers on a dev server of their own (workflows kept in a file), `settings.intents / 2`
 * intents (at least 20): the server stopped once a quarter are confirmed and started again on its
 * file after a seeded pause, then the only RPC endpoint resets connections and answers 503 for
 * seconds. Every intent confirmed once, I1–I4.
 */
export async function restartRun(world: WorldInTest, settings: FaultSettings): Promise<void> {
  const random = seededRandom('restarts', settings);
  const dir = mkdtempSync(join(tmpdir(), 'relayer-restart-'));
  const port = await freePort();
  const start = () =>
    startDevServer({
      port,
      dbFilename: join(dir, 'temporal.sqlite'),
      logPath: join(dir, 'temporal.log'),
    });
  let server: TestWorkflowEnvironment | undefined = await start();
  let workers: WorkerProcess[] = [];
  try {
    const address = `127.0.0.1:${port}`;
    const taskQueue = `restarts-${settings.depth}-${random.seed}`;
    workers = await world.spawnWorkers(2, { TEMPORAL_ADDRESS: address, TASK_QUEUE: taskQueue });

    const count = Math.max(20, Math.floor(settings.intents / 2));
    const accepted = (await submitMany(world, taskQueue, count, address)).map((s) => s.intent.id);
    await waitFor(
      async () => (await confirmedCount(world)) >= count / 4,
      'a quarter confirmed',
      120_000,
    );

    // The server goes away with workflows half done, and comes back on its database file.
    await server.teardown();
    server = undefined;
    await new Promise((resolve) => setTimeout(resolve, 1000 + random.below(3000)));
    server = await start();
    // Progress: an eighth more confirmed, or all of them. The server's stop takes a moment in
    // which the workers go on, and a CI run (seed 1883033497) had every intent ended by then:
    // "an eighth more" could never come, and the run timed out with no intent open.
    const afterRestart = await confirmedCount(world);
    const progressed = Math.min(count, Math.floor(afterRestart + count / 8) + 1);
    await waitFor(
      async () => (await confirmedCount(world)) >= progressed,
      'progress after the restart',
      180_000,
    );

    // Then the only RPC endpoint is down: connections reset, then 503s, then it is back.
    world.proxy!.failWith({ kind: 'reset' });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    world.proxy!.failWith({ kind: 'http-status', status: 503 });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    world.proxy!.failWith(undefined);

    await waitUntilSettled(world, count, 240_000);
    await expectInvariants({ world, deposits, accepted, proxy: world.proxy });
    expect(await confirmedCount(world)).toBe(count);
  } catch (error) {
    // What the server and the workers said, kept for a failure that does not come back on replay.
    mkdirSync('test-output', { recursive: true });
    const kept = join('test-output', `restarts-${random.seed}`);
    mkdirSync(kept, { recursive: true });
    if (existsSync(join(dir, 'temporal.log'))) {
      copyFileSync(join(dir, 'temporal.log'), join(kept, 'temporal.log'));
    }
    workers.forEach((worker, i) =>
      writeFileSync(join(kept, `worker-${i + 1}.log`), worker.output()),
    );
    const open = server
      ? await openIntentsAsTemporalSees(world, server).catch((e: unknown) => e)
      : 'no server';
    writeFileSync(join(kept, 'open-intents.json'), JSON.stringify(open, null, 2));
    // CI keeps only the runner's output: the message itself says where the run stood.
    const seen = await whereItStood(workers, open);
    throw new Error(
      `${(error as Error).message} (the server's and workers' logs: ${kept})\n${seen}`,
      { cause: error },
    );
  } finally {
    await server?.teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}

import { randomUUID } from 'node:crypto';
import { spawnApi, spawnWorker, type WorkerProcess } from './stack/worker-process';
import { startLocalWorld, type LocalWorld, type LocalWorldOptions } from './stack/local-world';

export type TestWorld = LocalWorld;

/** Whether this test file runs in the PostgreSQL project (see jest.config.js). */
const onPostgres = () =>
  (globalThis as { __relayerTestStore?: string }).__relayerTestStore === 'postgres';

/**
 * A fresh local world per test file, its workers pointed at the shared dev server; its data in a
 * fresh SQLite file, or in the PostgreSQL project a fresh database on TEST_POSTGRES_URL's server.
 */
export const startTestWorld = (options: LocalWorldOptions = {}): Promise<TestWorld> =>
  startLocalWorld({
    temporalAddress: process.env.TEMPORAL_TEST_ADDRESS,
    postgresServerUrl: onPostgres() ? process.env.TEST_POSTGRES_URL : undefined,
    ...options,
    // A task queue of its own: files run side by side on one dev server, and a worker on another
    // file's queue would take its workflows against the wrong database and chain.
    settings: { TASK_QUEUE: `test-${randomUUID()}`, ...options.settings },
  });

export type TestSuite = ReturnType<typeof useTestWorld>;

/**
 * One world for a test file, started before its tests and stopped after them; worker processes
 * spawned through it are killed at the end whatever happened, so none outlives a failed test.
 */
export function useTestWorld(options: LocalWorldOptions = {}) {
  let started: TestWorld | undefined;
  const spawned: WorkerProcess[] = [];
  beforeAll(async () => {
    started = await startTestWorld(options);
  });
  afterAll(async () => {
    for (const worker of spawned) worker.signal('SIGKILL');
    await started?.stop();
  });
  const world = (): TestWorld => {
    if (!started) throw new Error('the test world is only there inside tests');
    return started;
  };
  return {
    world,
    /** `count` worker processes on this world with the given settings. */
    async spawnWorkers(count: number, overrides: Record<string, string>): Promise<WorkerProcess[]> {
      const workers = await Promise.all(
        Array.from({ length: count }, () => spawnWorker(world().env(overrides))),
      );
      spawned.push(...workers);
      return workers;
    },
    /** An API process (no workers) on this world with the given settings. */
    async spawnApi(overrides: Record<string, string>): Promise<WorkerProcess> {
      const api = await spawnApi(world().env(overrides));
      spawned.push(api);
      return api;
    },
  };
}

import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Intent } from '../../domain/intent';
import { submitIntent, type SubmittedIntent } from '../../service/submit-intent';
import { getIntent } from '../../store/intents';
import { spawnApi, spawnWorker, type WorkerProcess } from './stack/worker-process';
import { startLocalWorld, type LocalWorld, type LocalWorldOptions } from './stack/local-world';
import { waitUntilEnded } from './intents';

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

/** A payment's fields a test may set; the rest default to 0.001 ETH from the first tenant. */
export type TestPayment = Record<string, unknown>;

/** What a test file does with its world besides reading it (the world's own fields beside). */
export interface WorldTools {
  /**
   * Runs before the world stops, the last registered first: stops what a test started on the
   * world (a relayer, an API, a client), whatever happened in the tests.
   */
  onStop(stop: () => unknown): void;
  /** `count` worker processes on this world with the given settings. */
  spawnWorkers(count: number, overrides: Record<string, string>): Promise<WorkerProcess[]>;
  /** An API process (no workers) on this world with the given settings. */
  spawnApi(overrides: Record<string, string>): Promise<WorkerProcess>;
  /** Admits a payment and starts its workflow on the world's task queue (the service's way in). */
  submit(payment?: TestPayment): Promise<SubmittedIntent>;
  /** Submits a payment and waits for its end (a worker must run): the intent as it ended. */
  pay(payment?: TestPayment, timeoutMs?: number): Promise<Intent>;
}

export type WorldInTest = TestWorld & WorldTools;

/**
 * One world for a test file, started before its tests and stopped after them: its fields read as
 * the world's once started (`world.anvil` inside a test), its tools beside them. Worker processes
 * spawned through it are killed at the end and `onStop` work done first, whatever happened, so
 * nothing outlives a failed test.
 */
export function useWorld(options: LocalWorldOptions = {}): WorldInTest {
  let started: TestWorld | undefined;
  let connection: Promise<Connection> | undefined;
  const stops: (() => unknown)[] = [];
  const firstTenant = Object.keys(options.tenants ?? { acme: '' })[0] ?? 'acme';
  beforeAll(async () => {
    started = await startTestWorld(options);
  });
  afterAll(async () => {
    // Every stop runs even when one fails; the first failure is reported after them.
    const failures: unknown[] = [];
    for (const stop of stops.splice(0).reverse()) {
      await Promise.resolve()
        .then(stop)
        .catch((error: unknown) => failures.push(error));
    }
    await (await connection)?.close();
    await started?.stop();
    if (failures.length > 0) throw failures[0];
  });
  const world = (): TestWorld => {
    if (!started) throw new Error('the test world is only there inside tests (and their hooks)');
    return started;
  };
  const spawned = (process: WorkerProcess) => {
    stops.push(() => process.signal('SIGKILL'));
    return process;
  };
  const tools: WorldTools = {
    onStop: (stop) => void stops.push(stop),
    spawnWorkers: async (count, overrides) =>
      (
        await Promise.all(Array.from({ length: count }, () => spawnWorker(world().env(overrides))))
      ).map(spawned),
    spawnApi: async (overrides) => spawned(await spawnApi(world().env(overrides))),
    async submit(payment = {}) {
      connection ??= Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
      const client = new Client({ connection: await connection });
      const { database, anvil } = world();
      return submitIntent(
        { database, client, taskQueue: world().env().TASK_QUEUE! },
        {
          tenantId: firstTenant,
          chainId: anvil.chainId,
          to: privateKeyToAccount(generatePrivateKey()).address,
          amount: parseEther('0.001').toString(),
          ...payment,
        },
      );
    },
    async pay(payment, timeoutMs = 60_000) {
      const { intent } = await tools.submit(payment);
      await waitUntilEnded(world(), [intent.id], timeoutMs);
      return getIntent(world().database.kysely, intent.id);
    },
  };
  return new Proxy(tools as WorldInTest, {
    get: (target, key) => {
      if (key in target) return target[key as keyof WorldTools];
      const value = world()[key as keyof TestWorld];
      return typeof value === 'function' ? value.bind(world()) : value;
    },
    has: (target, key) => key in target || (started !== undefined && key in started),
    // Spread (`{ ...world, chains }`) copies the world's fields, as it would the world itself.
    ownKeys: (target) => [...Reflect.ownKeys(target), ...(started ? Reflect.ownKeys(started) : [])],
    getOwnPropertyDescriptor: (target, key) =>
      Reflect.getOwnPropertyDescriptor(target, key) ??
      (started && Reflect.getOwnPropertyDescriptor(started, key)),
  });
}

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEther } from 'viem';
import { freePort } from '../../dev/stack/free-port';
import { startDevServer } from '../../dev/stack/temporal-servers';
import { waitFor } from '../../dev/stack/wait-for';
import { faultSettings, seededRandom } from '../support/fault-settings';
import { expectInvariants } from '../support/invariants';
import { confirmedCount, submitMany, waitUntilSettled } from '../support/intents';
import { useTestWorld } from '../support/test-world';

const deposits = { acme: parseEther('100'), globex: parseEther('100') };
const suite = useTestWorld({ proxy: true, wallets: 3 });

jest.setTimeout(400_000);

describe('the Temporal server restarted and the RPC endpoint down, mid-run', () => {
  let server: TestWorkflowEnvironment | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'relayer-restart-'));
  afterAll(async () => {
    await server?.teardown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('workers ride through both: every intent confirmed once, the books balance', async () => {
    const world = suite.world();
    const random = seededRandom('restarts');
    // Its own dev server, keeping workflows in a file so that a restart finds them again.
    const port = await freePort();
    const start = () => startDevServer({ port, dbFilename: join(dir, 'temporal.sqlite') });
    server = await start();
    const address = `127.0.0.1:${port}`;
    const taskQueue = `restarts-${random.seed}`;
    await suite.spawnWorkers(2, { TEMPORAL_ADDRESS: address, TASK_QUEUE: taskQueue });

    const count = Math.max(40, Math.floor(faultSettings.intents / 2));
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
    const afterRestart = await confirmedCount(world);
    await waitFor(
      async () => (await confirmedCount(world)) > afterRestart + count / 8,
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
  });
});

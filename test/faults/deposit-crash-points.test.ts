import { ExitedBeforeReadyError } from '../harness/stack/worker-process';
import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import type { CrashPoint } from '../../activities/failpoints';
import {
  depositScanScheduleId,
  depositUpkeepScheduleId,
  orphanSweepScheduleId,
} from '../../client/sweep-schedules';
import { operatorOwner } from '../../domain/custody';
import { nativeBookOf } from '../../domain/ledger-book';
import { listDeposits } from '../../store/deposits';
import { tenantBalance } from '../../store/ledger';
import { depositWorld, handOutAddress, mineUntil, sendNative } from '../harness/deposit-world';
import { seededRandom } from '../harness/fault-settings';
import { expectInvariants } from '../harness/invariants';
import { useWorld } from '../harness/test-world';

// A deposit's side effects with a worker SIGKILLed right after each: recorded, credited, a sweep
// written. Each next worker finds the work where the dead one left it; the tenant is credited once
// and the treasury receives the deposit once.

jest.setTimeout(240_000);

const world = useWorld({
  anvil: { slotsInAnEpoch: 1 },
  wallets: 1,
  tenants: { acme: '0' },
});

it('a worker killed after detecting, after crediting and after writing the sweep: credited once, swept once', async () => {
  const db = world.database.kysely;
  const taskQueue = `deposit-crashes-${seededRandom('deposit crash points').seed}`;
  const { treasury, factory, env } = await depositWorld(world, taskQueue);
  const address = await handOutAddress(world, factory, 'acme');
  const amount = parseEther('0.75');
  await sendNative(world, address, amount);
  const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
  const client = new Client({ connection });
  const killedAt = async (point: CrashPoint) => {
    let exit: number | string | undefined;
    try {
      const [dying] = await world.spawnWorkers(1, { ...env, CRASH_AT: point });
      void dying!.exited.then((code) => (exit = code));
    } catch (error) {
      // The upkeep Schedule can run the step while the worker starts: the planned crash still.
      if (!(error instanceof ExitedBeforeReadyError)) throw error;
      expect(error.output).toContain(`crash point ${point} reached`);
      exit = error.exit;
    }
    await mineUntil(world, async () => exit !== undefined, `a worker to die at ${point}`);
    expect(exit).toBe('SIGKILL');
  };
  try {
    await killedAt('after-deposit-detected');
    expect((await listDeposits(db, 'acme', { limit: 5 })).map((d) => d.status)).toEqual([
      'detected',
    ]);
    await killedAt('after-deposit-credited');
    expect((await listDeposits(db, 'acme', { limit: 5 })).map((d) => d.status)).toEqual([
      'credited',
    ]);
    await killedAt('after-deposit-sweep-admitted');
    const sweepIntents = () =>
      db.selectFrom('intents').selectAll().where('tenant_id', '=', operatorOwner).execute();
    expect((await sweepIntents()).map((i) => i.status)).toEqual(['authorized']);

    const treasuryBefore = await world.testClient.getBalance({ address: treasury });
    const [worker] = await world.spawnWorkers(1, env);
    await mineUntil(
      world,
      async () =>
        (await db.selectFrom('deposit_sweeps').select('swept').execute()).every(
          (row) => row.swept !== null,
        ),
      'the sweep confirmed and read back',
    );
    const [sweep] = await sweepIntents();
    expect(await sweepIntents()).toHaveLength(1);
    expect(sweep!.status).toBe('confirmed');
    expect(await tenantBalance(db, 'acme', nativeBookOf(world.anvil.chainId))).toEqual({
      available: amount,
      held: 0n,
    });
    expect(await world.testClient.getBalance({ address })).toBe(0n);
    const gas = BigInt(sweep!.fee_paid ?? '0');
    expect(await world.testClient.getBalance({ address: treasury })).toBe(
      treasuryBefore + amount - gas,
    );
    await expectInvariants({
      world,
      deposits: { acme: amount },
      wallets: [...world.wallets, treasury],
    });
    worker!.signal('SIGTERM');
    await worker!.exited;
  } finally {
    for (const id of [
      depositScanScheduleId(taskQueue, world.anvil.chainId),
      depositUpkeepScheduleId(taskQueue, world.anvil.chainId),
      orphanSweepScheduleId(taskQueue),
    ]) {
      await client.schedule
        .getHandle(id)
        .delete()
        .catch(() => undefined);
    }
    await connection.close();
  }
});

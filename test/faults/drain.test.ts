import { parseEther } from 'viem';
import { stopSummary } from '../harness/stack/worker-process';
import { waitFor } from '../harness/stack/wait-for';
import { expectInvariants } from '../harness/invariants';
import { submitMany, waitUntilSettled } from '../harness/intents';
import { useWorld } from '../harness/test-world';

const deposits = { acme: parseEther('100'), globex: parseEther('100') };
const world = useWorld({ proxy: true });

jest.setTimeout(180_000);

describe('a drain (SIGTERM) in the middle of a slow run', () => {
  it('leaves never-started intents byte-for-byte untouched, with zero RPC calls; the next worker finishes', async () => {
    const db = world.database.kysely;
    const settings = {
      TASK_QUEUE: 'drain',
      THROTTLE_PER_SECOND: '2',
      THROTTLE_BURST: '1',
      THROTTLE_MAX_IN_FLIGHT: '2',
    };
    world.proxy!.holdResponses('eth_sendRawTransaction', 500);
    const [worker] = await world.spawnWorkers(1, settings);
    const submitted = await submitMany(world, 'drain', 20);
    await waitFor(
      async () =>
        (await db.selectFrom('intents').select('id').where('tx_hash', 'is not', null).execute())
          .length >= 3,
      'three intents signed',
    );

    const authorized = () =>
      db
        .selectFrom('intents')
        .selectAll()
        .where('status', '=', 'authorized')
        .orderBy('id')
        .execute();
    const atStop = await authorized();
    worker!.signal('SIGTERM');
    expect(await worker!.exited).toBe(0);
    expect(stopSummary(worker!.output())).toMatchObject({ abandoned: 0, panics: 0 });

    // Never started = still authorized after the drain: each row exactly as it was at SIGTERM.
    const untouched = await authorized();
    expect(untouched.length).toBeGreaterThan(0);
    const rowAtStop = new Map(atStop.map((row) => [row.id, JSON.stringify(row)]));
    for (const row of untouched) expect(JSON.stringify(row)).toBe(rowAtStop.get(row.id));
    const untouchedIds = untouched.map((row) => row.id);
    for (const table of ['transaction_attempts', 'holds'] as const) {
      const rows = await db
        .selectFrom(table)
        .select('intent_id')
        .where('intent_id', 'in', untouchedIds)
        .execute();
      expect({ table, rows }).toEqual({ table, rows: [] });
    }
    // With the worker gone nothing reaches the node any more.
    const callsAfterExit = world.proxy!.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(world.proxy!.calls.length).toBe(callsAfterExit);

    await world.spawnWorkers(1, { ...settings, THROTTLE_PER_SECOND: '20', THROTTLE_BURST: '10' });
    world.proxy!.holdResponses('eth_sendRawTransaction', 0);
    await waitUntilSettled(world, 20, 120_000);
    const accepted = submitted.map((s) => s.intent.id);
    await expectInvariants({ world, deposits, accepted, proxy: world.proxy });
  });
});

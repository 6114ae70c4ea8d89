import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import type { CrashPoint } from '../../activities/failpoints';
import { stopSummary } from '../harness/stack/worker-process';
import { paymentIntentWorkflowId } from '../../domain/workflow-ids';
import { expectInvariants } from '../harness/invariants';
import { submitMany, waitUntilSettled } from '../harness/intents';
import { useWorld } from '../harness/test-world';

const deposits = { acme: parseEther('100'), globex: parseEther('100') };
const world = useWorld({ proxy: true });

/**
 * Where a step panics (throws a TypeError, as a bug does) right after its side effect, and the
 * n-th time: inside the workflow's task (permit, settling, hold: local activities), in the send
 * (the attempt stored, then the bytes sent) and in a look at the receipt.
 */
const panics: [CrashPoint, number][] = [
  ['after-permit', 1],
  ['after-settling', 2],
  ['after-hold', 1],
  ['after-sign', 2],
  ['after-broadcast', 1],
  ['after-confirm', 3],
];

describe('a bug in a step: a TypeError thrown right after its side effect', () => {
  it('is counted as a panic and the step is tried again; no intent is taken on by the failed attempt, each is paid once', async () => {
    const taskQueue = `panics-${randomUUID()}`;
    const [worker] = await world.spawnWorkers(1, {
      TASK_QUEUE: taskQueue,
      PANIC_AT: panics.map(([point, n]) => `${point}@${n}`).join(','),
    });
    const submitted = await submitMany(world, taskQueue, 10);
    await waitUntilSettled(world, 10, 120_000);
    worker!.signal('SIGTERM');
    await worker!.exited;

    // The worker lived through every panic, counted each, and every intent was confirmed.
    expect(stopSummary(worker!.output())).toMatchObject({ sent: 10, panics: panics.length });
    const rows = await world.database.kysely.selectFrom('intents').select('status').execute();
    expect(rows.map((row) => row.status)).toEqual(rows.map(() => 'confirmed'));
    // I1: one transaction per intent, each recipient paid once; I3, I4: the books.
    const accepted = submitted.map(({ intent }) => intent.id);
    await expectInvariants({ world, deposits, accepted, proxy: world.proxy });

    // Temporal saw each panic as the step's failure, and the step's next attempt as its result.
    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    try {
      const client = new Client({ connection });
      const retried: string[] = [];
      for (const id of accepted) {
        const history = await client.workflow.getHandle(paymentIntentWorkflowId(id)).fetchHistory();
        for (const event of history.events ?? []) {
          const started = event.activityTaskStartedEventAttributes;
          if (started?.lastFailure?.message?.startsWith('panic planned at')) {
            retried.push(started.lastFailure.message);
          }
        }
      }
      // The send and the receipt look are activities of the task queue: their retries are in
      // the history (the local activities' retries stay inside the workflow task).
      expect(retried.sort()).toEqual([
        'panic planned at after-broadcast (time 1)',
        'panic planned at after-confirm (time 3)',
        'panic planned at after-sign (time 2)',
      ]);
    } finally {
      await connection.close();
    }
  });
});

import { Client, Connection } from '@temporalio/client';
import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseNewIntent } from '../../domain/intent-request';
import { getIntent } from '../../store/intents';
import { auditTrail } from '../../store/audit-log';
import { listAttempts } from '../../store/transaction-attempts';
import type { Intent } from '../../domain/intent';
import { reviewIntent } from '../../service/review-intent';
import { waitFor } from '../harness/stack/wait-for';
import { crashPointWorld } from '../harness/crash-point-run';
import { intentHeldUnmined } from '../harness/intent-in-review';
import { cancelIntent } from '../../service/cancel-intent';
import { speedUpIntent } from '../../service/speed-up';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { seededRandom } from '../harness/fault-settings';
import { useWorld } from '../harness/test-world';
import { createTenant, deposit, tenantBalance } from '../../store/ledger';
import { setBookLimits } from '../../service/policy-limits';
import { submitIntent } from '../../service/submit-intent';
import { decideIntentApproval } from '../../service/approve-intent';
import { scheduleBodySchema, temporalScheduleId } from '../../domain/payment-schedule';
import { createSchedule } from '../../service/payment-schedules';
import { occurrencesOf, recordOccurrence } from '../../store/payment-schedules';
import { backfillSchedule } from '../../service/schedule-backfill';

const world = useWorld(crashPointWorld);

jest.setTimeout(600_000);

describe("SIGKILL between an operator's or a schedule's side effect and its report", () => {
  /**
   * A worker that dies right after a cancel is stored (`point`), for an intent whose transaction
   * waits in the node's pool (automine off) until its confirmation timeout, or only until it is
   * sent (`after-unmined-cancel`); `cancel` brings the cancel about. The next worker applies it
   * once: one cancel sent and mined, the intent failed, its hold released.
   */
  async function cancelledOnceThroughACrash(
    point: 'after-review' | 'after-lane-freed' | 'after-unmined-cancel',
    wallet: number,
    cancel: (context: {
      deps: Parameters<typeof reviewIntent>[0];
      intent: Intent;
    }) => Promise<() => Promise<void>>,
  ): Promise<void> {
    const taskQueue = `crash-${point}-${seededRandom(point).seed}`;
    const [dying] = await world.spawnWorkers(1, { TASK_QUEUE: taskQueue, CRASH_AT: point });
    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    const client = new Client({ connection });
    const deps = { database: world.database, client, taskQueue, chains: world.chains };
    try {
      const request = parseNewIntent({
        tenantId: 'acme',
        chainId: world.anvil.chainId,
        from: world.wallets[wallet]!,
        to: privateKeyToAccount(generatePrivateKey()).address,
        amount: parseEther('0.25').toString(),
      });
      const { intent, handle } =
        point === 'after-unmined-cancel'
          ? await intentHeldUnmined(world, deps, request, 'confirming')
          : await intentHeldUnmined(world, deps, request, 'needs_review', 1500);
      const heldBefore = (await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!
        .held;
      const afterRestart = await cancel({ deps, intent });
      // Killed at its crash point, as a power cut would: not an exit of its own.
      expect(await dying!.exited).toBe('SIGKILL');
      const [worker] = await world.spawnWorkers(1, { TASK_QUEUE: taskQueue });
      // The step's next try (after its timeout) finds the cancel stored and signs nothing more.
      await afterRestart();
      await waitFor(
        async () => (await getIntent(world.database.kysely, intent.id)).status === 'confirming',
        'the cancel to be sent',
        60_000,
      );
      await world.testClient.mine({ blocks: 1 });
      expect((await handle.result()).status).toBe('failed');
      const ended = await getIntent(world.database.kysely, intent.id);
      expect(ended.reasonCode).toBe('cancelled_on_chain');
      const attempts = await listAttempts(world.database.kysely, intent.id);
      expect(attempts.map((attempt) => attempt.cause)).toEqual(['first', 'cancel']);
      expect(ended.txHash).toBe(attempts[1]!.txHash);
      const trail = await auditTrail(world.database.kysely, intent.id);
      expect(trail.filter((entry) => entry.action === 'cancel_signed')).toHaveLength(1);
      expect(await world.testClient.getBalance({ address: intent.to })).toBe(0n);
      const heldAfter = (await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!
        .held;
      expect(heldBefore - heldAfter).toBe(parseEther('0.25'));
      await expectBooksBalanced(world.database);
      worker!.signal('SIGTERM');
      await worker!.exited;
    } finally {
      await world.testClient.setAutomine(true);
      await connection.close();
    }
  }

  it("an operator's cancel stored just before the worker died is applied once, sent and mined", () =>
    cancelledOnceThroughACrash('after-review', 2, async ({ deps, intent }) => {
      const operator = { role: 'operator' as const, keyId: 'test', label: 'test' };
      const decided = reviewIntent(deps, operator, intent.id, { action: 'cancel' });
      return async () => expect((await decided).status).toBe('signed');
    }));

  it("a tenant's cancel of a payment sent but not mined, stored and sent just before the worker died, is applied once and mined", () =>
    cancelledOnceThroughACrash('after-unmined-cancel', 0, async ({ deps, intent }) => {
      const tenant = { role: 'tenant' as const, tenantId: 'acme', keyId: 'k', label: 'test' };
      const cancelled = cancelIntent(deps, tenant, intent.id);
      return async () => expect((await cancelled).status).toBe('confirming');
    }));

  it("the lane rule's cancel stored just before the worker died is applied once, sent and mined", () =>
    cancelledOnceThroughACrash('after-lane-freed', 1, async ({ intent }) => {
      // The node loses it: one confirmation timeout later the rule finds it nowhere.
      await world.testClient.dropTransaction({ hash: intent.txHash! });
      return async () => undefined;
    }));

  it("a tenant's speed-up stored and sent just before the worker died is applied once; the replacement is mined, paid once", async () => {
    const point = 'after-speed-up';
    const taskQueue = `crash-${point}-${seededRandom(point).seed}`;
    const [dying] = await world.spawnWorkers(1, { TASK_QUEUE: taskQueue, CRASH_AT: point });
    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    const client = new Client({ connection });
    const deps = { database: world.database, client, taskQueue, chains: world.chains };
    try {
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const request = parseNewIntent({
        tenantId: 'acme',
        chainId: world.anvil.chainId,
        from: world.wallets[0]!,
        to,
        amount: parseEther('0.25').toString(),
      });
      const { intent, handle } = await intentHeldUnmined(world, deps, request, 'confirming');
      const tenant = { role: 'tenant' as const, tenantId: 'acme', keyId: 'k', label: 'test' };
      const sped = speedUpIntent(deps, tenant, intent.id, {});
      expect(await dying!.exited).toBe('SIGKILL');
      const [worker] = await world.spawnWorkers(1, { TASK_QUEUE: taskQueue });
      // The step's next try (after its timeout) finds the speed-up stored and signs nothing more.
      const answer = await sped;
      const attempts = await listAttempts(world.database.kysely, intent.id);
      expect(attempts.map((attempt) => attempt.cause)).toEqual(['first', 'fee_bump']);
      expect(answer.txHash).toBe(attempts[1]!.txHash);
      await world.testClient.mine({ blocks: 1 });
      expect(await handle.result()).toMatchObject({
        status: 'confirmed',
        txHash: attempts[1]!.txHash,
      });
      const trail = await auditTrail(world.database.kysely, intent.id);
      expect(trail.filter((entry) => entry.action === 'sped_up')).toHaveLength(1);
      expect(await world.testClient.getBalance({ address: to })).toBe(parseEther('0.25'));
      await expectBooksBalanced(world.database);
      worker!.signal('SIGTERM');
      await worker!.exited;
    } finally {
      await world.testClient.setAutomine(true);
      await connection.close();
    }
  });

  /**
   * A tenant whose payments of 0.5 ETH wait for a second key, one worker carrying `point`, and
   * one such payment submitted.
   */
  async function awaitingApprovalWithDyingWorker(
    tenantId: string,
    point: 'after-approval' | 'after-allow-upgrade',
  ) {
    const taskQueue = `crash-${point}-${seededRandom(point).seed}`;
    await createTenant(world.database, { id: tenantId, name: tenantId }, new Date());
    await deposit(world.database, tenantId, parseEther('2'), new Date(), world.nativeBook);
    const operator = { role: 'operator' as const, keyId: 'test-op', label: 'test' };
    await setBookLimits({ database: world.database }, operator, tenantId, {
      chainId: world.anvil.chainId,
      approvalThreshold: parseEther('0.5'),
    });
    const [dying] = await world.spawnWorkers(1, { TASK_QUEUE: taskQueue, CRASH_AT: point });
    const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
    const deps = { database: world.database, client: new Client({ connection }), taskQueue };
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const { intent, workflowId } = await submitIntent(
      deps,
      { tenantId, chainId: world.anvil.chainId, to, amount: parseEther('0.5').toString() },
      { submittedBy: 'clerk' },
    );
    return { world, deps, connection, dying, to, intent, workflowId };
  }

  it('an approval written just before the worker died is applied once: the intent is paid once', async () => {
    const { world, deps, connection, dying, to, intent, workflowId } =
      await awaitingApprovalWithDyingWorker('foureyes', 'after-approval');
    try {
      expect(intent.status).toBe('awaiting_approval');
      const cfo = { role: 'tenant' as const, tenantId: 'foureyes', keyId: 'cfo', label: 'cfo' };
      const decided = decideIntentApproval(deps, cfo, intent.id, 'approve');
      // Killed at its crash point, as a power cut would: not an exit of its own.
      expect(await dying!.exited).toBe('SIGKILL');
      const [worker] = await world.spawnWorkers(1, { TASK_QUEUE: deps.taskQueue });
      // The step's next try finds the approval written and answers it; the run goes on to pay.
      expect((await decided).status).not.toBe('awaiting_approval');
      const handle = deps.client.workflow.getHandle(workflowId);
      expect((await handle.result()).status).toBe('confirmed');
      expect(await world.testClient.getBalance({ address: to })).toBe(parseEther('0.5'));
      const trail = await auditTrail(world.database.kysely, intent.id);
      expect(trail.map((entry) => entry.action)).toEqual(['approve']);
      await expectBooksBalanced(world.database);
      worker!.signal('SIGTERM');
      await worker!.exited;
    } finally {
      await connection.close();
    }
  });

  it('a run moved off its build just before the worker died waits on, and is paid once when approved', async () => {
    const { world, deps, connection, dying, to, intent, workflowId } =
      await awaitingApprovalWithDyingWorker('moved', 'after-allow-upgrade');
    try {
      // Killed as its wait begins, the override set and not yet reported.
      expect(await dying!.exited).toBe('SIGKILL');
      const [worker] = await world.spawnWorkers(1, { TASK_QUEUE: deps.taskQueue });
      const cfo = { role: 'tenant' as const, tenantId: 'moved', keyId: 'cfo', label: 'cfo' };
      await decideIntentApproval(deps, cfo, intent.id, 'approve');
      const handle = deps.client.workflow.getHandle(workflowId);
      expect((await handle.result()).status).toBe('confirmed');
      expect(await world.testClient.getBalance({ address: to })).toBe(parseEther('0.5'));
      const history = await handle.fetchHistory();
      const moves = history.events!.filter(
        (event) =>
          event.activityTaskScheduledEventAttributes?.activityType?.name === 'allowUpgrade',
      );
      // Tried again by the next worker (the same step), not asked twice by the workflow.
      expect(moves).toHaveLength(1);
      await expectBooksBalanced(world.database);
      worker!.signal('SIGTERM');
      await worker!.exited;
    } finally {
      await connection.close();
    }
  });
  it.each([
    ['its Temporal Schedule fired', 'trigger'],
    ['a backfill ran an occurrence recorded missed again', 'missed'],
  ] as const)(
    'an occurrence admitted just before the worker died (%s) is started by the next: paid once',
    async (_how, how) => {
      const taskQueue = `crash-occurrence-${how}-${seededRandom(`occurrence-${how}`).seed}`;
      const [dying] = await world.spawnWorkers(1, {
        TASK_QUEUE: taskQueue,
        CRASH_AT: 'after-occurrence-admitted',
      });
      const connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS });
      try {
        const deps = { database: world.database, client: new Client({ connection }), taskQueue };
        const to = privateKeyToAccount(generatePrivateKey()).address;
        const tenant = { role: 'tenant' as const, tenantId: 'acme', keyId: 'k', label: 'payroll' };
        const body = scheduleBodySchema.parse({
          payment: { chainId: world.anvil.chainId, to, amount: parseEther('0.25').toString() },
          every: '1d',
        });
        const { schedule } = await createSchedule(
          { ...deps, chains: world.chains },
          tenant,
          body,
          `crash-${taskQueue}`,
        );
        const timer = deps.client.schedule.getHandle(temporalScheduleId(schedule.id));
        if (how === 'trigger') {
          await timer.trigger();
        } else {
          // Last midnight's occurrence (every 1d counts from the epoch), recorded missed.
          const midnight = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
          await recordOccurrence(world.database.kysely, {
            scheduleId: schedule.id,
            occurrenceAt: midnight,
            recordedAt: new Date(),
            outcome: 'missed',
            intentId: null,
            code: 'paused',
            message: 'the tenant was paused',
          });
          await backfillSchedule({ ...deps, chains: world.chains }, tenant, schedule.id, {
            from: new Date(midnight.getTime() - 1000),
            to: new Date(midnight.getTime() + 1000),
            beforeStart: true,
          });
        }
        // Killed with the intent admitted and recorded, its workflow not started.
        expect(await dying!.exited).toBe('SIGKILL');
        const [admitted] = await occurrencesOf(world.database.kysely, schedule.id, 10);
        expect(admitted).toMatchObject({ outcome: 'admitted' });
        const [worker] = await world.spawnWorkers(1, { TASK_QUEUE: taskQueue });
        await waitFor(
          async () =>
            (await getIntent(world.database.kysely, admitted!.intentId!)).status === 'confirmed',
          'the occurrence paid',
        );
        expect(await occurrencesOf(world.database.kysely, schedule.id, 10)).toHaveLength(1);
        expect(await world.testClient.getBalance({ address: to })).toBe(parseEther('0.25'));
        await expectBooksBalanced(world.database);
        await timer.delete();
        worker!.signal('SIGTERM');
        await worker!.exited;
      } finally {
        await connection.close();
      }
    },
  );
});

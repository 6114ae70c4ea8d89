import { parseEther } from 'viem';
import type { IntentView } from '../../api/schemas/intents';
import { ApiError, type RelayerApiClient } from '../../cli/api-client';
import type { Hex } from '../../domain/transfer';
import { waitFor } from '../harness/stack/wait-for';
import { tenantBalance } from '../../store/ledger';
import { startRelayerProcess, type RelayerProcess } from '../../workers/relayer-process';
import { createKeys, startApiWithoutWorkers, type ApiUnderTest } from '../harness/api';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { useWorld } from '../harness/test-world';
import { paymentSentUnmined as sentUnmined } from '../harness/unmined-payments';

/**
 * A payment sent but not mined, taken back by its tenant or an operator: a zero-value transfer
 * at its nonce, through the intent's workflow (the `cancelUnmined` update), on a node that drops
 * what it is sent (anvil's pool emptied as a lossy provider's would be).
 */
const stuckAfterMs = 3000;

/**
 * How many looks the backoff allows in a line's first `ms`: each at 2.5 × the age of the one
 * before (it waited 1.5 × that age), at least the poll interval after it; however late each look
 * came, there were no more (a look every 300 ms made 13 in 4 s, this allows 6).
 */
function looksWithin(ms: number): number {
  let looks = 0;
  for (let age = 0; age <= ms; age = Math.max(age + 100, age * 2.5)) looks++;
  return looks;
}
const world = useWorld({ tenants: { acme: '10' }, wallets: 2, confirmations: 2 });
let api: ApiUnderTest;
let relayer: RelayerProcess;
let tenant: RelayerApiClient;
let operator: RelayerApiClient;
beforeAll(async () => {
  // Two confirmations: a payment mined one block deep is still `confirming`.
  api = await startApiWithoutWorkers(world);
  const keys = await createKeys(world, ['acme']);
  tenant = api.as(keys.acme);
  operator = api.as(keys.operator);
  relayer = await startRelayerProcess(
    world.config({ TASK_QUEUE: api.taskQueue, STUCK_AFTER_MS: String(stuckAfterMs) }),
  );
});
world.onStop(async () => {
  await world?.testClient.setAutomine(true);
  await relayer?.stop();
  await api?.close();
});

const paymentSentUnmined = (wallet: number) => sentUnmined(world, tenant, wallet);

/** Empties the node's pool every 100 ms, as a node that accepts transactions and loses them. */
function dropEverythingSent(): { stop: () => Promise<void> } {
  let dropping = true;
  const loop = (async () => {
    while (dropping) {
      const pool = await world.testClient.getTxpoolContent();
      for (const byNonce of Object.values(pool.pending)) {
        for (const tx of Object.values(byNonce)) {
          await world.testClient.dropTransaction({ hash: tx.hash });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      dropping = false;
      await loop;
    },
  };
}

const causes = async (intentId: string) => (await tenant.attempts(intentId)).map((a) => a.cause);
const held = async () =>
  (await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!.held;

describe('a cancel of a payment sent but not mined', () => {
  it('a payment the node drops is sent again on a backoff and outbid once stuck; its tenant cancels it and the (outbid) cancel is mined: failed, nothing paid, hold released', async () => {
    await world.testClient.setAutomine(false);
    const dropper = dropEverythingSent();
    try {
      const payment = await paymentSentUnmined(0);
      const heldBefore = await held();
      await waitFor(
        async () => (await causes(payment.id)).includes('fee_bump'),
        'the lost payment to be outbid once stuck',
        30_000,
      );
      const cancelled = await tenant.call<IntentView>('POST', `/v1/intents/${payment.id}/cancel`, {
        body: { note: 'sent to the wrong customer' },
      });
      expect(cancelled.status).toBe(202);
      expect(cancelled.body).toMatchObject({ status: 'confirming', nonce: payment.nonce });
      const attempts = await tenant.attempts(payment.id);
      expect(attempts.at(-1)).toMatchObject({ cause: 'cancel', txHash: cancelled.body.txHash });
      // The cancel is lost too: once stuck it is outbid as a cancel, never as the payment again.
      await waitFor(
        async () => (await causes(payment.id)).slice(attempts.length).includes('fee_bump'),
        'the lost cancel to be outbid once stuck',
        30_000,
      );
      // Sent again on a backoff: a look at a transaction not mined waits 1.5 × its line's age (from
      // the payment's or the cancel's signing; a fee bump keeps it), at least the poll interval
      // (100 ms here). So a line can have been sent again at most as often as it was looked at.
      const trailWhileLost = await tenant.audit(payment.id);
      const lostUntil = Date.now();
      const cancel = trailWhileLost.findIndex((entry) => entry.action === 'cancel_signed');
      const lines = [
        { from: Date.parse(payment.createdAt), entries: trailWhileLost.slice(0, cancel) },
        {
          from: Date.parse(String(trailWhileLost[cancel]!.at)),
          entries: trailWhileLost.slice(cancel),
        },
      ];
      for (const { from, entries } of lines) {
        const resent = entries.filter((entry) => entry.action === 'resent').length;
        expect(resent).toBeLessThanOrEqual(looksWithin(lostUntil - from));
      }
      await dropper.stop();
      await world.testClient.setAutomine(true);
      await waitFor(
        async () => {
          if ((await tenant.get(payment.id)).status === 'failed') return true;
          // Its second confirmation, once the cancel sent again is mined.
          await world.testClient.mine({ blocks: 1 });
          await new Promise((resolve) => setTimeout(resolve, 500));
          return false;
        },
        'the cancel to be sent again, mined and confirmed',
        60_000,
      );
      const ended = await tenant.get(payment.id);
      expect(ended.reasonCode).toBe('cancelled_on_chain');
      const mined = await world.testClient.getTransaction({ hash: ended.txHash! as Hex });
      const wallet = world.wallets[0]!.toLowerCase();
      expect(mined).toMatchObject({ from: wallet, to: wallet, value: 0n });
      expect((await tenant.attempts(payment.id)).at(-1)).toMatchObject({
        cause: 'fee_bump',
        txHash: ended.txHash,
      });
      expect(await world.testClient.getBalance({ address: payment.to as Hex })).toBe(0n);
      expect(heldBefore - (await held())).toBe(parseEther('0.25'));

      const trail = await tenant.audit(payment.id);
      const cancels = trail.filter((entry) => entry.action === 'cancel_signed');
      expect(cancels).toHaveLength(1);
      expect(cancels[0]!.actor).toMatch(/^tenant acme key /);
      // The bound on a stuck payment's history (≤ 200 events over 30 minutes) is the time-skipping
      // test's (workflow/payment-intent); here the count follows how long the mining below took
      // (152–218 events in five runs), so it bounds nothing.
      await expectBooksBalanced(world.database);
    } finally {
      await dropper.stop();
      await world.testClient.setAutomine(true);
    }
  });

  it("an operator's cancel of a payment already mined (one block of two deep) is refused naming its block, and writes nothing", async () => {
    await world.testClient.setAutomine(false);
    try {
      const payment = await paymentSentUnmined(1);
      await world.testClient.mine({ blocks: 1 });
      const refusal = await operator.cancel(payment.id).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(ApiError);
      expect(refusal).toMatchObject({
        status: 409,
        body: { code: 'not_cancellable', details: { problem: 'mined', status: 'confirming' } },
      });
      expect((refusal as ApiError).body.message).toMatch(
        new RegExp(`its transaction ${payment.txHash} was mined in block \\d+`),
      );
      expect(await causes(payment.id)).toEqual(['first']);
      expect((await operator.audit(payment.id)).map((entry) => entry.action)).toEqual([]);
      await world.testClient.mine({ blocks: 1 });
      await waitFor(
        async () => (await tenant.get(payment.id)).status === 'confirmed',
        'the payment to be confirmed',
        30_000,
      );
      // Ended: refused by the books, without asking its workflow.
      await expect(tenant.cancel(payment.id)).rejects.toMatchObject({
        status: 409,
        body: { code: 'not_cancellable', details: { problem: 'ended', status: 'confirmed' } },
      });
    } finally {
      await world.testClient.setAutomine(true);
    }
  });
});

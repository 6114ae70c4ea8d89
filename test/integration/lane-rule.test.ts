import { parseEther } from 'viem';
import { createActivities } from '../../activities';
import { systemClock } from '../../activities/dependencies';
import { cancelledOnChainReason } from '../../domain/intent';
import { laneRuleActor } from '../../operations/abandoned-lane';
import { auditTrail } from '../../store/audit-log';
import { getIntent } from '../../store/intents';
import { tenantBalance } from '../../store/ledger';
import { listAttempts } from '../../store/transaction-attempts';
import type { Throttle } from '../../throttle/throttle';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { runActivity as run } from '../harness/run-activity';
import { startTestThrottle } from '../harness/test-throttle';
import { useWorld } from '../harness/test-world';
import { laneStuckBehindUnpayableIntent, newIntentFrom } from '../harness/unpayable-intent';

/**
 * The lane rule against a real node and store: an intent in review whose transactions no
 * endpoint has and whose nonce is unused gets the relayer's own cancel; any other is left to a
 * person, with nothing written.
 */
const world = useWorld({ tenants: { acme: '10' }, wallets: 2 });
let throttle: Throttle;
beforeAll(async () => {
  throttle = await startTestThrottle();
});
world.onStop(async () => {
  await world?.testClient.setAutomine(true);
  await throttle?.close();
});

const activities = () =>
  createActivities({
    db: world.database,
    chains: world.chains,
    throttle,
    clock: systemClock,
    permitReleaseQueue: 'unused',
  });

const held = async () =>
  (await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!.held;

describe('the lane rule', () => {
  it('cancels the nonce of an intent its wallet cannot pay: the intents behind it are mined, its hold released', async () => {
    const steps = activities();
    const { stuck, behind } = await laneStuckBehindUnpayableIntent(world, steps, 0, 3);
    const heldBefore = await held();

    const freed = await run(steps.freeAbandonedLane, { intentId: stuck.id });
    expect(freed).toMatchObject({ status: 'signed' });
    const attempts = await listAttempts(world.database.kysely, stuck.id);
    expect(attempts.map((a) => [a.cause, a.nonce])).toEqual([
      ['first', attempts[0]!.nonce],
      ['cancel', attempts[0]!.nonce],
    ]);
    const [entry] = await auditTrail(world.database.kysely, stuck.id);
    expect(entry).toMatchObject({ action: 'cancel_signed', actor: laneRuleActor });

    // The workflow then sends the cancel and follows it, as after an operator's cancel.
    await run(steps.broadcast, { intentId: stuck.id });
    let look = await run(steps.confirm, { intentId: stuck.id });
    while (look.state === 'pending') look = await run(steps.confirm, { intentId: stuck.id });
    expect(look.state).toBe('cancelled');
    expect(await getIntent(world.database.kysely, stuck.id)).toMatchObject({
      status: 'failed',
      reason: cancelledOnChainReason,
    });
    expect(heldBefore - (await held())).toBe(parseEther('1'));
    for (const intent of behind) {
      const receipt = await world.testClient.waitForTransactionReceipt({
        hash: intent.txHash!,
        timeout: 10_000,
      });
      expect(receipt.status).toBe('success');
    }
    expect(await world.testClient.getBalance({ address: stuck.to })).toBe(0n);
    await expectBooksBalanced(world.database);
  });

  it('leaves to a person an intent whose transaction the node still has, writing nothing', async () => {
    const steps = activities();
    await world.testClient.setAutomine(false);
    const intent = await newIntentFrom(world, 1, '0.25');
    for (const step of [steps.markSettling, steps.hold, steps.broadcast])
      await run(step, { intentId: intent.id });
    await run(steps.closeIntent, {
      intentId: intent.id,
      reason: 'ConfirmationTimeout: test',
      reasonCode: 'confirmation_timeout',
    });
    const inReview = await getIntent(world.database.kysely, intent.id);

    expect(await run(steps.freeAbandonedLane, { intentId: intent.id })).toBeNull();
    expect(await getIntent(world.database.kysely, intent.id)).toEqual(inReview);
    expect((await listAttempts(world.database.kysely, intent.id)).map((a) => a.cause)).toEqual([
      'first',
    ]);
    expect(await auditTrail(world.database.kysely, intent.id)).toEqual([]);
    await world.testClient.setAutomine(true);
  });
});

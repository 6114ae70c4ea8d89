import { formatEther, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createActivities, type RelayerActivities } from '../../activities';
import type { BroadcastOutcome, ChainRegistry } from '../../chain/chain';
import { systemClock } from '../../activities/dependencies';
import { getIntent, insertIntent } from '../../store/intents';
import { tenantBalance } from '../../store/ledger';
import type { Throttle } from '../../throttle/throttle';
import { newIntentId } from '../../operations/new-id';
import { ErrorName } from '../../domain/error-catalogue';
import { IntentStatus } from '../../domain/intent';
import { signingWallet } from '../../domain/signed-intent';
import { parseNewIntent } from '../../domain/intent-request';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { startTestWorld, useWorld } from '../harness/test-world';
import { startTestThrottle } from '../harness/test-throttle';
import { failureType, runActivity } from '../harness/run-activity';

const world = useWorld({ tenants: { acme: '10' } });
let throttle: Throttle;
beforeAll(async () => {
  throttle = await startTestThrottle();
});
world.onStop(async () => {
  await throttle.close();
});

const recipient = () =>
  privateKeyToAccount(`0x${'1'.repeat(63)}${Math.floor(Math.random() * 9)}`).address;

function activitiesWith(chains: ChainRegistry = world.chains): RelayerActivities {
  return createActivities({
    db: world.database,
    chains,
    throttle,
    clock: systemClock,
    permitReleaseQueue: 'q',
  });
}

/** The real chains, with every broadcast passed through `intercept` first. */
function interceptBroadcast(
  intercept: (send: () => Promise<BroadcastOutcome>) => Promise<BroadcastOutcome>,
): ChainRegistry {
  return {
    chainIds: world.chains.chainIds,
    get: (chainId) => {
      const chain = world.chains.get(chainId);
      return { ...chain, broadcast: (signed) => intercept(() => chain.broadcast(signed)) };
    },
  };
}

const run = runActivity;

async function newIntent(amountEther = '0.5', from = world.wallets[0]!, to = recipient()) {
  const request = parseNewIntent({
    tenantId: 'acme',
    chainId: world.anvil.chainId,
    from,
    to,
    amount: parseEther(amountEther).toString(),
  });
  const { intent } = await insertIntent(world.database.kysely, newIntentId(), request, new Date());
  return intent;
}

/** anvil mines right after a send, but the receipt can lag the send's reply by a moment. */
async function confirmSettled(activities: RelayerActivities, intentId: string) {
  for (let look = 0; look < 50; look++) {
    const result = await run(activities.confirm, { intentId });
    if (result.state !== 'pending') return result;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`intent ${intentId} still pending`);
}

describe('activities against real SQLite and anvil', () => {
  it('each step run twice changes nothing the first run did', async () => {
    const activities = activitiesWith();
    const intent = await newIntent('1');
    const { intentId } = { intentId: intent.id };
    const before = await tenantBalance(world.database.kysely, 'acme', world.nativeBook);
    const nonceBefore = await world.chain.pendingNonce(signingWallet(intent));

    for (let i = 0; i < 2; i++)
      expect(await run(activities.markSettling, { intentId })).toEqual({ status: 'settling' });
    expect((await getIntent(world.database.kysely, intentId)).version).toBe(2);

    for (let i = 0; i < 2; i++)
      expect(await run(activities.hold, { intentId })).toEqual({ status: 'held' });
    expect(await tenantBalance(world.database.kysely, 'acme', world.nativeBook)).toEqual({
      available: before!.available - parseEther('1'),
      held: before!.held + parseEther('1'),
    });

    const first = await run(activities.broadcast, { intentId });
    const second = await run(activities.broadcast, { intentId });
    expect(second).toEqual(first);
    expect(first.status).toBe(IntentStatus.confirming);
    expect(await world.chain.pendingNonce(signingWallet(intent))).toBe(nonceBefore + 1);

    const confirmed = await confirmSettled(activities, intentId);
    expect(confirmed).toEqual({
      state: 'confirmed',
      blockNumber: expect.any(String),
      ageMs: expect.any(Number),
      txHash: first.txHash,
      reason: null,
      reasonCode: null,
      asset: 'native',
    });
    expect(await run(activities.confirm, { intentId })).toEqual({
      ...confirmed,
      ageMs: expect.any(Number),
    });

    const stored = await getIntent(world.database.kysely, intentId);
    expect(stored).toMatchObject({
      status: 'confirmed',
      version: 6,
      nonce: first.nonce,
      txHash: first.txHash,
    });
    const tx = await world.testClient.getTransaction({ hash: first.txHash });
    expect(tx).toMatchObject({ to: intent.to.toLowerCase(), value: parseEther('1') });
    const snapshot = await expectBooksBalanced(world.database);
    expect(snapshot.holds.find((h) => h.intentId === intentId)).toMatchObject({
      status: 'captured',
    });
    expect(await tenantBalance(world.database.kysely, 'acme', world.nativeBook)).toEqual({
      available: before!.available - parseEther('1'),
      held: before!.held,
    });
  });

  it('a crash between signing and sending re-sends the same signed bytes', async () => {
    let failNextSend = true;
    const flaky = interceptBroadcast((send) => {
      if (!failNextSend) return send();
      failNextSend = false;
      throw new Error('worker died before the send');
    });
    const activities = activitiesWith(flaky);
    const intent = await newIntent();
    await run(activities.markSettling, { intentId: intent.id });
    await run(activities.hold, { intentId: intent.id });
    await expect(run(activities.broadcast, { intentId: intent.id })).rejects.toThrow('worker died');
    const signed = await getIntent(world.database.kysely, intent.id);
    expect(signed).toMatchObject({
      status: 'signed',
      txHash: expect.stringMatching(/^0x/),
      rawTx: expect.stringMatching(/^0x/),
    });

    const sent = await run(activities.broadcast, { intentId: intent.id });
    expect(sent.txHash).toBe(signed.txHash);
    expect((await getIntent(world.database.kysely, intent.id)).rawTx).toBe(signed.rawTx);
    expect(await confirmSettled(activities, intent.id)).toMatchObject({ state: 'confirmed' });
  });

  it('confirms only at the configured depth', async () => {
    const deep = await startTestWorld({ confirmations: 3, tenants: { acme: '1' } });
    try {
      const activities = createActivities({
        db: deep.database,
        chains: deep.chains,
        throttle,
        clock: systemClock,
        permitReleaseQueue: 'q',
      });
      const request = parseNewIntent({
        tenantId: 'acme',
        chainId: deep.anvil.chainId,
        from: deep.wallets[0],
        to: recipient(),
        amount: '1000',
      });
      const { intent } = await insertIntent(
        deep.database.kysely,
        newIntentId(),
        request,
        new Date(),
      );
      for (const step of [activities.markSettling, activities.hold, activities.broadcast])
        await run(step, { intentId: intent.id });
      let seen = await run(activities.confirm, { intentId: intent.id });
      while (seen.state === 'pending' && seen.confirmations === 0)
        seen = await run(activities.confirm, { intentId: intent.id });
      expect(seen).toMatchObject({ state: 'pending', confirmations: 1 });
      await deep.testClient.mine({ blocks: 1 });
      await deep.chain.blockNumber(0); // the head read after the mine, not waited for on a timer
      expect(await run(activities.confirm, { intentId: intent.id })).toMatchObject({
        state: 'pending',
        confirmations: 2,
      });
      await deep.testClient.mine({ blocks: 1 });
      await deep.chain.blockNumber(0); // the head read after the mine, not waited for on a timer
      expect(await run(activities.confirm, { intentId: intent.id })).toMatchObject({
        state: 'confirmed',
      });
    } finally {
      await deep.stop();
    }
  });

  it('a hold never drives a balance negative; closing before signing releases it', async () => {
    const activities = activitiesWith();
    const before = (await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!;
    const balance = before.available;
    const fits = await newIntent(formatEther(balance - parseEther('0.1')));
    const tooMuch = await newIntent('0.2');
    for (const intent of [fits, tooMuch])
      await run(activities.markSettling, { intentId: intent.id });
    await run(activities.hold, { intentId: fits.id });
    expect(await failureType(run(activities.hold, { intentId: tooMuch.id }))).toBe(
      ErrorName.insufficientBalance,
    );
    expect((await tenantBalance(world.database.kysely, 'acme', world.nativeBook))!.available).toBe(
      parseEther('0.1'),
    );

    expect(
      await run(activities.closeIntent, { intentId: tooMuch.id, reason: 'InsufficientBalance' }),
    ).toEqual({ status: 'failed', ageMs: expect.any(Number), asset: 'native' });
    expect(await run(activities.closeIntent, { intentId: fits.id, reason: 'cancelled' })).toEqual({
      status: 'failed',
      ageMs: expect.any(Number),
      asset: 'native',
    });
    expect(await tenantBalance(world.database.kysely, 'acme', world.nativeBook)).toEqual(before);
    await expectBooksBalanced(world.database);
  });
});

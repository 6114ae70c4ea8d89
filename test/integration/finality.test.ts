import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { markFinalized } from '../../activities/mark-finalized';
import { systemClock } from '../../activities/dependencies';
import { createEvmChain } from '../../chain/evm-chain';
import type { Intent } from '../../domain/intent';
import { applyReviewDecision } from '../../operations/review-decision';
import { getIntent } from '../../store/intents';
import { tenantBalance } from '../../store/ledger';
import { endHold, placeHold } from '../../store/holds';
import { insertAttempt } from '../../store/transaction-attempts';
import { registerEndpoint } from '../../service/webhooks';
import { evmChainSettings } from '../../workers/chain-settings';
import { expectBooksBalanced } from '../harness/ledger-checks';
import { runActivity } from '../harness/run-activity';
import { testWebhookSettings } from '../harness/webhook-settings';
import { useWorld, type TestWorld } from '../harness/test-world';

// Two epochs of one slot: anvil's finalized block is the head less two.
const world = useWorld({ anvil: { slotsInAnEpoch: 1 }, tenants: { acme: '1' } });

/**
 * A confirmed intent as the relayer leaves it: a real transfer, signed, persisted as its attempt,
 * mined (automine) and recorded with its block.
 */
async function confirmedIntent(world: TestWorld, id: string, status = 'confirmed') {
  const to = privateKeyToAccount(generatePrivateKey()).address;
  const from = world.wallets[0]!;
  const plan = await world.chain.planTransfer({ from, to, value: 1000n });
  const nonce = await world.chain.pendingNonce(from);
  const signed = await world.chain.signTransfer(plan, nonce);
  await world.chain.broadcast(signed);
  const receipt = await world.testClient.waitForTransactionReceipt({ hash: signed.txHash });
  const at = new Date();
  await sql`insert into intents (id, tenant_id, chain_id, from_address, to_address, amount,
      status, version, nonce, tx_hash, raw_tx, block_number, created_at, updated_at)
    values (${id}, 'acme', ${world.anvil.chainId}, ${from}, ${to}, '1000', ${status}, 5, ${nonce},
      ${signed.txHash}, ${signed.rawTx}, ${receipt.blockNumber.toString()}, ${at.toISOString()},
      ${at.toISOString()})`.execute(world.database.kysely);
  await insertAttempt(
    world.database.kysely,
    { intentId: id, attempt: 1, nonce, ...signed, ...plan, cause: 'first' },
    at,
  );
  return { from, to, nonce, plan, block: receipt.blockNumber };
}

/** Held and captured as the payment's workflow leaves it (the house paid `gas`). */
async function captured(world: TestWorld, intentId: string, amount: bigint, gas: bigint) {
  const { database } = world;
  const now = new Date();
  const hold = { intentId, tenantId: 'acme', chainId: world.anvil.chainId, amount, feeHeld: 0n };
  await database.transaction((trx) =>
    placeHold(database, trx, { ...hold, asset: world.nativeBook }, now),
  );
  await database.transaction((trx) => endHold(database, trx, intentId, 'captured', now, gas));
}

/** A webhook endpoint of acme's, so its events are stored in the outbox. */
const subscribe = (world: TestWorld, eventType: string) =>
  registerEndpoint(
    {
      database: world.database,
      webhooks: testWebhookSettings(),
    },
    { role: 'tenant', tenantId: 'acme', keyId: 'test', label: 'test' },
    { url: 'http://127.0.0.1:9/hooks', eventTypes: [eventType] },
  );

const sweepOf = (world: TestWorld, seen: string[] = [], reorged: string[] = []) =>
  markFinalized({
    db: world.database,
    chains: world.chains,
    clock: systemClock,
    onFinalized: (intent: Intent) => {
      seen.push(intent.id);
    },
    onReorgedBeforeFinality: (intent: Intent, resent: string, flagged: boolean) => {
      reorged.push(`${intent.id} ${resent}${flagged ? ' flagged' : ''}`);
    },
  });

describe('finality, recorded by a sweep per chain (no intent workflow involved)', () => {
  it('marks a confirmed intent final once the finalized block reaches its own, once, and tells its webhooks intent.finalized', async () => {
    const db = world.database.kysely;
    await subscribe(world, 'intent.finalized');
    await world.testClient.mine({ blocks: 3 });
    await confirmedIntent(world, 'pi_confirming', 'confirming');
    await confirmedIntent(world, 'pi_deep');
    await world.testClient.mine({ blocks: 2 });
    await confirmedIntent(world, 'pi_fresh');
    const head = await world.testClient.getBlockNumber({ cacheTime: 0 });
    expect(await world.chain.finalizedBlock()).toBe(head - 2n);
    const seen: string[] = [];
    const sweep = sweepOf(world, seen);
    const chainKey = String(world.anvil.chainId);

    expect(await runActivity(sweep, { limit: 100 })).toEqual({ finalized: { [chainKey]: 1 } });
    expect((await getIntent(db, 'pi_deep')).finalizedAt).toBeInstanceOf(Date);
    expect((await getIntent(db, 'pi_fresh')).finalizedAt).toBeNull();

    await world.testClient.mine({ blocks: 2 });
    expect(await runActivity(sweep, { limit: 100 })).toEqual({ finalized: { [chainKey]: 1 } });
    // Run again (or by a second worker at once): nothing is marked twice.
    const again = await Promise.all([
      runActivity(sweep, { limit: 100 }),
      runActivity(sweep, { limit: 100 }),
    ]);
    expect(again).toEqual([{ finalized: { [chainKey]: 0 } }, { finalized: { [chainKey]: 0 } }]);
    expect(seen).toEqual(['pi_deep', 'pi_fresh']);
    expect((await getIntent(db, 'pi_confirming')).finalizedAt).toBeNull();

    const events = await db
      .selectFrom('webhook_events')
      .select(['intent_id', 'type', 'previous_status', 'body'])
      .orderBy('intent_id')
      .execute();
    expect(events.map((e) => [e.intent_id, e.type, e.previous_status])).toEqual([
      ['pi_deep', 'intent.finalized', 'confirmed'],
      ['pi_fresh', 'intent.finalized', 'confirmed'],
    ]);
    const body = JSON.parse(events[1]!.body) as {
      type: string;
      data: { intent: { status: string; finalizedAt: string } };
    };
    expect(body.type).toBe('intent.finalized');
    expect(body.data.intent.status).toBe('confirmed');
    expect(new Date(body.data.intent.finalizedAt).getTime()).toBe(
      (await getIntent(db, 'pi_fresh')).finalizedAt!.getTime(),
    );
  });

  it('a confirmed transaction a reorg removed before finality: its same bytes again, audited, final only once mined anew; paid once', async () => {
    const db = world.database.kysely;
    const before = await world.testClient.snapshot();
    const { to, block } = await confirmedIntent(world, 'pi_reorged');
    // The block that held it is replaced by others without it (the node forgets the bytes).
    await world.testClient.revert({ id: before });
    await world.testClient.mine({ blocks: 3 });
    expect(await world.testClient.getBalance({ address: to })).toBe(0n);
    expect(await world.chain.finalizedBlock()).toBeGreaterThanOrEqual(block);

    const seen: string[] = [];
    const reorged: string[] = [];
    const sweep = sweepOf(world, seen, reorged);
    const chainKey = String(world.anvil.chainId);
    expect(await runActivity(sweep, { limit: 100 })).toEqual({
      finalized: { [chainKey]: 0 },
      reorged: { [chainKey]: 1 },
    });
    expect(reorged).toEqual(['pi_reorged sent']);
    const audit = await db
      .selectFrom('audit_log')
      .select(['action', 'detail'])
      .where('intent_id', '=', 'pi_reorged')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['reorged_before_finality']);
    // Sent again, mined again (automine) in a later block: finality waits for that one. The
    // node answers the send before its block is readable on a loaded machine: wait for it.
    const { txHash } = await getIntent(db, 'pi_reorged');
    await world.testClient.waitForTransactionReceipt({ hash: txHash as `0x${string}` });
    expect(await world.testClient.getBalance({ address: to })).toBe(1000n);
    expect(await runActivity(sweep, { limit: 100 })).toEqual({ finalized: { [chainKey]: 0 } });
    const moved = await getIntent(db, 'pi_reorged');
    expect(moved.blockNumber! > block).toBe(true);
    expect(moved.finalizedAt).toBeNull();
    await world.testClient.mine({ blocks: 2 });
    expect(await runActivity(sweep, { limit: 100 })).toEqual({ finalized: { [chainKey]: 1 } });
    expect(seen).toEqual(['pi_reorged']);
    expect(await world.testClient.getBalance({ address: to })).toBe(1000n);
  });

  it('reorged away and its nonce taken by another transaction: in review with its capture standing; failed, the capture is reversed; confirmed with what paid it, the books stay', async () => {
    const db = world.database.kysely;
    const before = await world.testClient.snapshot();
    await subscribe(world, 'intent.needs_review');
    const deposited = (await tenantBalance(db, 'acme', world.nativeBook))!.available;
    const unpaid = await confirmedIntent(world, 'pi_unpaid');
    const repaid = await confirmedIntent(world, 'pi_repaid');
    await captured(world, 'pi_unpaid', 1000n, 21_000n);
    await captured(world, 'pi_repaid', 1000n, 21_000n);
    // The reorged chain has other transactions at their nonces: one pays nothing, the other is
    // the same payment signed again at another fee (not one of the intent's attempts).
    await world.testClient.revert({ id: before });
    const chain = world.chain;
    const selfTransfer = await chain.planTransfer({
      from: unpaid.from,
      to: unpaid.from,
      value: 0n,
    });
    await chain.broadcast(await chain.signTransfer(selfTransfer, unpaid.nonce));
    const samePayment = { ...repaid.plan, maxFeePerGas: repaid.plan.maxFeePerGas + 1n };
    const payment = await chain.signTransfer(samePayment, repaid.nonce);
    await chain.broadcast(payment);
    await world.testClient.mine({ blocks: 3 });

    const reorged: string[] = [];
    const chainKey = String(world.anvil.chainId);
    expect(await runActivity(sweepOf(world, [], reorged), { limit: 100 })).toEqual({
      finalized: { [chainKey]: 0 },
      reorged: { [chainKey]: 2 },
      flagged: { [chainKey]: 2 },
    });
    expect(reorged.sort()).toEqual([
      'pi_repaid nonce-taken flagged',
      'pi_unpaid nonce-taken flagged',
    ]);
    for (const id of ['pi_unpaid', 'pi_repaid']) {
      const intent = await getIntent(db, id);
      expect([intent.status, intent.reasonCode]).toEqual(['needs_review', 'reorged_away']);
    }
    const captures = deposited - 2000n;
    expect((await tenantBalance(db, 'acme', world.nativeBook))!.available).toBe(captures);
    const told = await db
      .selectFrom('webhook_events')
      .select(['intent_id', 'type', 'previous_status'])
      .where('type', '=', 'intent.needs_review')
      .orderBy('intent_id')
      .execute();
    expect(told).toEqual([
      { intent_id: 'pi_repaid', type: 'intent.needs_review', previous_status: 'confirmed' },
      { intent_id: 'pi_unpaid', type: 'intent.needs_review', previous_status: 'confirmed' },
    ]);

    const review = { database: world.database, chains: world.chains };
    await expect(
      applyReviewDecision(review, { actor: 'ops' }, 'pi_unpaid', { action: 'retry' }),
    ).rejects.toMatchObject({ details: { problem: 'transaction_taken' } });
    const failed = await applyReviewDecision(review, { actor: 'ops' }, 'pi_unpaid', {
      action: 'fail',
      reason: 'reorged away, nothing paid',
    });
    expect(failed.status).toBe('failed');
    expect((await tenantBalance(db, 'acme', world.nativeBook))!.available).toBe(captures + 1000n);
    const confirmed = await applyReviewDecision(review, { actor: 'ops' }, 'pi_repaid', {
      action: 'confirm',
      txHash: payment.txHash,
    });
    expect([confirmed.status, confirmed.txHash]).toEqual(['confirmed', payment.txHash]);
    expect((await tenantBalance(db, 'acme', world.nativeBook))!.available).toBe(captures + 1000n);

    const entries = await db
      .selectFrom('postings')
      .select(['intent_id', 'entry'])
      .distinct()
      .where('intent_id', 'in', ['pi_unpaid', 'pi_repaid'])
      .orderBy('intent_id')
      .orderBy('entry')
      .execute();
    expect(entries.map((e) => `${e.intent_id} ${e.entry}`)).toEqual([
      'pi_repaid capture',
      'pi_repaid gas',
      'pi_repaid hold',
      'pi_unpaid capture',
      'pi_unpaid capture_reversed',
      'pi_unpaid gas',
      'pi_unpaid gas_reversed',
      'pi_unpaid hold',
    ]);
    const { holds } = await expectBooksBalanced(world.database);
    expect(holds.map((h) => `${h.intentId} ${h.status}`).sort()).toEqual([
      'pi_repaid captured',
      'pi_unpaid released',
    ]);
  });

  it('a chain whose finality is a depth counts back from the head', async () => {
    const chain = createEvmChain(evmChainSettings(world.config({ FINALITY: '4' })));
    const head = await world.testClient.getBlockNumber({ cacheTime: 0 });
    expect(await chain.finalizedBlock()).toBe(head - 4n);
  });
});

import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { markFinalized } from '../../activities/mark-finalized';
import { systemClock } from '../../activities/dependencies';
import { createEvmChain } from '../../chain/evm-chain';
import type { Intent } from '../../domain/intent';
import { getIntent } from '../../store/intents';
import { insertAttempt } from '../../store/transaction-attempts';
import { registerEndpoint } from '../../service/webhooks';
import { secretBox } from '../../webhooks/secret-box';
import { evmChainSettings } from '../../workers/chain-settings';
import { runActivity } from '../support/run-activity';
import { useTestWorld, type TestWorld } from '../support/test-world';

// Two epochs of one slot: anvil's finalized block is the head less two.
const suite = useTestWorld({ anvil: { slotsInAnEpoch: 1 } });

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
  return { to, block: receipt.blockNumber };
}

const sweepOf = (world: TestWorld, seen: string[] = [], reorged: string[] = []) =>
  markFinalized({
    db: world.database,
    chains: world.chains,
    clock: systemClock,
    onFinalized: (intent: Intent) => {
      seen.push(intent.id);
    },
    onReorgedBeforeFinality: (intent: Intent, resent: string) => {
      reorged.push(`${intent.id} ${resent}`);
    },
  });

describe('finality, recorded by a sweep per chain (no intent workflow involved)', () => {
  it('marks a confirmed intent final once the finalized block reaches its own, once, and tells its webhooks intent.finalized', async () => {
    const world = suite.world();
    const db = world.database.kysely;
    await registerEndpoint(
      {
        database: world.database,
        webhooks: {
          box: secretBox(Buffer.alloc(32, 7)),
          policy: { allowLoopback: true },
          timeoutMs: 1000,
          rotationGraceMs: 0,
        },
      },
      { role: 'tenant', tenantId: 'acme', keyId: 'test', label: 'test' },
      { url: 'http://127.0.0.1:9/hooks', eventTypes: ['intent.finalized'] },
    );
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
    const world = suite.world();
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
    // Sent again, mined again (automine) in a later block: finality waits for that one.
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

  it('a chain whose finality is a depth counts back from the head', async () => {
    const world = suite.world();
    const chain = createEvmChain(evmChainSettings(world.config({ FINALITY: '4' })));
    const head = await world.testClient.getBlockNumber({ cacheTime: 0 });
    expect(await chain.finalizedBlock()).toBe(head - 4n);
  });
});

import { sql } from 'kysely';
import { markFinalized } from '../../activities/mark-finalized';
import { systemClock } from '../../activities/dependencies';
import { createEvmChain } from '../../chain/evm-chain';
import type { Intent } from '../../domain/intent';
import { getIntent } from '../../store/intents';
import { registerEndpoint } from '../../service/webhooks';
import { secretBox } from '../../webhooks/secret-box';
import { evmChainSettings } from '../../workers/chain-settings';
import { runActivity } from '../support/run-activity';
import { useTestWorld } from '../support/test-world';

// Two epochs of one slot: anvil's finalized block is the head less two.
const suite = useTestWorld({ anvil: { slotsInAnEpoch: 1 } });

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
      'acme',
      { url: 'http://127.0.0.1:9/hooks', eventTypes: ['intent.finalized'] },
    );
    await world.testClient.mine({ blocks: 5 });
    const head = await world.testClient.getBlockNumber({ cacheTime: 0 });
    expect(await world.chain.finalizedBlock()).toBe(head - 2n);
    const at = new Date().toISOString();
    for (const [id, status, block] of [
      ['pi_deep', 'confirmed', head - 3n],
      ['pi_fresh', 'confirmed', head],
      ['pi_confirming', 'confirming', head - 4n],
    ] as const) {
      await sql`insert into intents (id, tenant_id, chain_id, from_address, to_address, amount,
          status, version, block_number, created_at, updated_at)
        values (${id}, 'acme', ${world.anvil.chainId}, ${world.wallets[0]}, ${world.wallets[1]},
          '1', ${status}, 5, ${block.toString()}, ${at}, ${at})`.execute(db);
    }
    const seen: string[] = [];
    const sweep = markFinalized({
      db: world.database,
      chains: world.chains,
      clock: systemClock,
      onFinalized: (intent: Intent) => {
        seen.push(intent.id);
      },
    });
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

  it('a chain whose finality is a depth counts back from the head', async () => {
    const world = suite.world();
    const chain = createEvmChain(evmChainSettings(world.config({ FINALITY: '4' })));
    const head = await world.testClient.getBlockNumber({ cacheTime: 0 });
    expect(await chain.finalizedBlock()).toBe(head - 4n);
  });
});

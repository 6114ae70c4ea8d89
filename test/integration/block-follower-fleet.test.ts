import Redis from 'ioredis';
import { Registry } from 'prom-client';
import { parseEther } from 'viem';
import { createActivities } from '../../activities';
import { systemClock } from '../../activities/dependencies';
import { createChainRegistry, createEvmChain } from '../../chain/evm-chain';
import { parseNewIntent } from '../../domain/intent-request';
import { waitFor } from '../harness/stack/wait-for';
import { newIntentId } from '../../operations/new-id';
import { insertIntent } from '../../store/intents';
import { followBlocks } from '../../workers/block-follower';
import { evmChainSettings } from '../../workers/chain-settings';
import { followerLease, type FollowerLease } from '../../workers/follower-lease';
import { runActivity } from '../harness/run-activity';
import { startTestThrottle } from '../harness/test-throttle';
import { useWorld } from '../harness/test-world';

// Integration tier (~8 s): three processes' block followers sharing Redis, against anvil and the
// database (the wake is the seam: recorded, where a worker signals the payment's workflow). One
// follows and wakes each mined payment once; killed, another takes over within the lease.

const world = useWorld({ redis: true, wallets: 1, tenants: { acme: '10' } });
const leaseMs = 1500;
const clients: Redis[] = [];
world.onStop(async () => {
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
});

it('one follower per chain wakes each mined payment once; killed, another follows within a lease', async () => {
  const throttle = await startTestThrottle();
  const woken: { process: string; intentId: string }[] = [];
  const fleet = ['p1', 'p2', 'p3'].map((process) => {
    const redis = new Redis(world.redis!.url, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    const lease = followerLease(redis, process, leaseMs);
    // A killed process gives nothing back: its lease lapses.
    const killable: FollowerLease & { killed: boolean } = {
      killed: false,
      holds: (chainId) => (killable.killed ? Promise.resolve(false) : lease.holds(chainId)),
      release: () => (killable.killed ? Promise.resolve() : lease.release()),
    };
    const chains = createChainRegistry([createEvmChain(evmChainSettings(world.config()))]);
    const follower = followBlocks({
      database: world.database,
      chains,
      metrics: new Registry(),
      lease: killable,
      wake: async (intentId) => void woken.push({ process, intentId }),
    });
    return { process, lease: killable, follower };
  });
  const activities = createActivities({
    db: world.database,
    chains: world.chains,
    throttle,
    clock: systemClock,
    permitReleaseQueue: 'q',
  });
  /** A payment sent and waiting for its block (automine off). */
  const sentPayment = async () => {
    const request = parseNewIntent({
      tenantId: 'acme',
      chainId: world.anvil.chainId,
      to: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
      amount: parseEther('0.01').toString(),
    });
    const { intent } = await insertIntent(
      world.database.kysely,
      newIntentId(),
      request,
      new Date(),
    );
    for (const step of [activities.markSettling, activities.hold, activities.broadcast])
      await runActivity(step, { intentId: intent.id });
    return intent.id;
  };
  await world.testClient.setAutomine(false);
  try {
    const first = await sentPayment();
    await world.testClient.mine({ blocks: 1 });
    await waitFor(() => woken.some((w) => w.intentId === first), 'the first payment woken');
    const holder = await clients[0]!.get(`block-follower:${world.anvil.chainId}`);
    const leader = fleet.find((member) => member.process === holder)!;
    expect(woken).toEqual([{ process: holder, intentId: first }]);

    leader.lease.killed = true;
    const second = await sentPayment();
    await world.testClient.mine({ blocks: 1 });
    const killedAt = Date.now();
    await waitFor(() => woken.some((w) => w.intentId === second), 'the second payment woken');
    expect(Date.now() - killedAt).toBeLessThan(leaseMs * 3);
    const [wokenSecond] = woken.filter((w) => w.intentId === second);
    expect(wokenSecond!.process).not.toBe(holder);
    // A moment later: nobody woke either payment again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(woken.map((w) => w.intentId)).toEqual([first, second]);
  } finally {
    await world.testClient.setAutomine(true);
    await Promise.all(fleet.map((member) => member.follower.stop()));
    await throttle.close();
  }
});

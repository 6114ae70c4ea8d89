import { parseEther } from 'viem';
import type { ProxyFault } from './stack/rpc-proxy';
import { waitFor } from './stack/wait-for';
import { seededRandom, type FaultSettings } from './fault-settings';
import { expectInvariants } from './invariants';
import { confirmedCount, submitMany, waitUntilSettled } from './intents';
import { registeredTestToken } from './test-token';
import type { WorldInTest } from './test-world';

/** The world a chaos run needs: a proxy to inject the faults, three wallets. */
export const networkChaosWorld = { proxy: true, wallets: 3 };
const deposits = { acme: parseEther('100'), globex: parseEther('100') };

const chaos: ProxyFault[] = [
  { kind: 'latency', ms: 400 },
  { kind: 'latency', ms: 1500 },
  { kind: 'reset' },
  { kind: 'lost-answer' },
  { kind: 'hang' },
  { kind: 'rpc-error', code: -32005, message: 'limit exceeded' },
  { kind: 'http-status', status: 503 },
];

/**
 * Seeded faults on 20% of the calls between the worker and the node (latency 0.4 s / 1.5 s,
 * reset, hang, lost answer, -32005, 503) until half of `settings.intents / 2` intents (one in four
 * a token payment) are confirmed, the worker caching 4 workflows for all of them running, so most
 * workflow tasks replay their history; then every intent ends, paid once, I1–I4.
 */
export async function networkChaosRun(world: WorldInTest, settings: FaultSettings): Promise<void> {
  const random = seededRandom('network faults', settings);
  const taskQueue = `chaos-${settings.depth}-${random.seed}`;
  // Four cached for all of them running: most workflow tasks replay their whole history, a
  // determinism check under load. (0, every task, is refused: local activities need their
  // workflow kept through its task.)
  const [worker] = await world.spawnWorkers(1, {
    TASK_QUEUE: taskQueue,
    MAX_CACHED_WORKFLOWS: '4',
    RPC_TIMEOUT_MS: '1500',
    THROTTLE_PER_SECOND: '50',
    THROTTLE_BURST: '20',
  });
  const tusd = await registeredTestToken(world, {
    alias: 'TUSD',
    decimals: 6,
    tenants: { acme: 1000n, globex: 1000n },
  });
  world.proxy!.injectChaos({ seed: random.seed, rate: 0.2, faults: chaos });
  const count = Math.floor(settings.intents / 2);
  // One in four a token payment: its checks before signing and its logs meet the faults too.
  const submitted = await submitMany(world, taskQueue, count, undefined, (i) =>
    i % 4 === 3 ? { asset: tusd.alias, amount: '2500000' } : undefined,
  );
  await waitFor(async () => (await confirmedCount(world)) >= count / 2, 'half confirmed', 200_000);
  world.proxy!.injectChaos(undefined);
  await waitUntilSettled(world, count, 200_000);

  const refused = world.proxy!.calls.filter((call) => call.refused).length;
  console.log(`network faults: ${refused} of ${world.proxy!.calls.length} calls met a fault`);
  expect(refused).toBeGreaterThan(0);
  const accepted = submitted.map((s) => s.intent.id);
  await expectInvariants({
    world,
    deposits: { ...deposits, ...tusd.deposits },
    accepted,
    proxy: world.proxy,
  });
  expect(await confirmedCount(world)).toBe(count);
  // An idle worker still reads its wallets' balances: gone, it spends none of the next test's quota.
  worker!.signal('SIGTERM');
  await worker!.exited;
}

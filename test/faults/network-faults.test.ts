import { parseEther } from 'viem';
import { countIntentsByStatus } from '../../store/intents';
import { settledCount } from '../../dev/wait-until-settled';
import type { ProxyFault } from '../../dev/stack/rpc-proxy';
import { waitFor } from '../../dev/stack/wait-for';
import { faultSettings, seededRandom } from '../support/fault-settings';
import { expectInvariants } from '../support/invariants';
import { confirmedCount, submitMany, waitUntilSettled } from '../support/intents';
import { registeredTestToken } from '../support/test-token';
import { useTestWorld } from '../support/test-world';

const deposits = { acme: parseEther('100'), globex: parseEther('100') };
const suite = useTestWorld({ proxy: true, wallets: 3 });

jest.setTimeout(300_000);

const chaos: ProxyFault[] = [
  { kind: 'latency', ms: 400 },
  { kind: 'latency', ms: 1500 },
  { kind: 'reset' },
  { kind: 'lost-answer' },
  { kind: 'hang' },
  { kind: 'rpc-error', code: -32005, message: 'limit exceeded' },
  { kind: 'http-status', status: 503 },
];

describe('network faults on the worker ↔ node path (through the proxy)', () => {
  it('seeded latency, resets, lost answers, timeouts and error answers: every intent ends, paid once', async () => {
    const world = suite.world();
    const random = seededRandom('network faults');
    const taskQueue = `chaos-${random.seed}`;
    // Four cached for sixty running: most workflow tasks replay their whole history, a determinism
    // check under load. (0, every task, is refused: local activities need their workflow kept
    // through its task.)
    const [worker] = await suite.spawnWorkers(1, {
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
    const count = Math.max(40, Math.floor(faultSettings.intents / 2));
    // One in four a token payment: its checks before signing and its logs meet the faults too.
    const submitted = await submitMany(world, taskQueue, count, undefined, (i) =>
      i % 4 === 3 ? { asset: tusd.alias, amount: '2500000' } : undefined,
    );
    await waitFor(
      async () => (await confirmedCount(world)) >= count / 2,
      'half confirmed',
      200_000,
    );
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
  });

  it("a provider quota over every method the relayer's budget matches: zero 429s; one it exceeds: 429s absorbed", async () => {
    const world = suite.world();
    const before = settledCount(await countIntentsByStatus(world.database.kysely));
    // Every call counts, a send three units (a provider's compute-unit table, in small).
    const quota = { perSecond: 12, burst: 4, weights: { eth_sendRawTransaction: 3 } };
    // The provider's bucket holds one unit more than the budget's: a loaded CI machine delivered
    // two calls the budget let go apart bunched past its 50 ms of jitter (one 429 in a run).
    world.proxy!.enforceQuota({ ...quota, burst: quota.burst + 1, answer: 'rpc-error' });
    const settings = (perSecond: number, taskQueue: string) => ({
      TASK_QUEUE: taskQueue,
      RPC_UNITS_PER_SECOND: String(perSecond),
      RPC_BURST_UNITS: String(quota.burst),
      RPC_WEIGHTS: 'per-call,eth_sendRawTransaction=3',
      THROTTLE_PER_SECOND: String(perSecond),
      THROTTLE_BURST: '2',
      THROTTLE_MAX_IN_FLIGHT: '5',
    });
    const [matching] = await suite.spawnWorkers(1, settings(quota.perSecond, 'quota-matching'));
    await submitMany(world, 'quota-matching', 30);
    await waitUntilSettled(world, before + 30, 120_000);
    expect(world.proxy!.quotaRefusals()).toBe(0);
    matching!.signal('SIGTERM');
    await matching!.exited;

    // Four times the provider's rate, answered with HTTP 429 this time: refused sends are retried.
    world.proxy!.enforceQuota({ ...quota, answer: 'http-429' });
    await suite.spawnWorkers(1, settings(quota.perSecond * 4, 'quota-exceeding'));
    await submitMany(world, 'quota-exceeding', 30);
    await waitUntilSettled(world, before + 60, 120_000);
    console.log(
      `provider quota exceeded 4×: calls refused by method ${JSON.stringify(world.proxy!.quotaRefusalsByMethod())}`,
    );
    expect(world.proxy!.quotaRefusals()).toBeGreaterThan(0);
    world.proxy!.enforceQuota(undefined);
    await expectInvariants({ world, deposits, proxy: world.proxy });
  });
});

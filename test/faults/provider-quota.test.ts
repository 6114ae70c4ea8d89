import { parseEther } from 'viem';
import { countIntentsByStatus } from '../../store/intents';
import { settledCount } from '../harness/wait-until-settled';
import { expectInvariants } from '../harness/invariants';
import { submitMany, waitUntilSettled } from '../harness/intents';
import { networkChaosWorld } from '../harness/network-chaos-run';
import { useWorld } from '../harness/test-world';

const deposits = { acme: parseEther('100'), globex: parseEther('100') };
const world = useWorld(networkChaosWorld);

jest.setTimeout(300_000);

describe('a provider quota on the worker ↔ node path (through the proxy)', () => {
  it("a provider quota over every method the relayer's budget matches: zero 429s; one it exceeds: 429s absorbed", async () => {
    const before = settledCount(await countIntentsByStatus(world.database.kysely));
    // Every call counts, a send three units (a provider's compute-unit table, in small).
    const quota = { perSecond: 12, burst: 4, weights: { eth_sendRawTransaction: 3 } };
    // The proxy runs in this jest process, beside the test's own work: a stall here timestamps
    // calls that arrived apart as one bunch (one 429 in a CI run, past the budget's 25 ms of
    // delivery jitter). Its bucket holds a quarter second of the rate more than the budget's for
    // that; the spend window's bound against both ways of counting is proven in
    // test/unit/spend-window.test.ts and measured by the bench (--provider-window).
    world.proxy!.enforceQuota({ ...quota, burst: quota.burst + 3, answer: 'rpc-error' });
    const settings = (perSecond: number, taskQueue: string) => ({
      TASK_QUEUE: taskQueue,
      RPC_UNITS_PER_SECOND: String(perSecond),
      RPC_BURST_UNITS: String(quota.burst),
      RPC_WEIGHTS: 'per-call,eth_sendRawTransaction=3',
      THROTTLE_PER_SECOND: String(perSecond),
      THROTTLE_BURST: '2',
      THROTTLE_MAX_IN_FLIGHT: '5',
    });
    // Enough payments to keep the provider at its limit for seconds on end.
    const count = 20;
    const [matching] = await world.spawnWorkers(1, settings(quota.perSecond, 'quota-matching'));
    await submitMany(world, 'quota-matching', count);
    await waitUntilSettled(world, before + count, 120_000);
    expect(world.proxy!.quotaRefusals()).toBe(0);
    matching!.signal('SIGTERM');
    await matching!.exited;

    // Four times the provider's rate, answered with HTTP 429 this time: refused sends are retried.
    world.proxy!.enforceQuota({ ...quota, answer: 'http-429' });
    await world.spawnWorkers(1, settings(quota.perSecond * 4, 'quota-exceeding'));
    await submitMany(world, 'quota-exceeding', count);
    await waitUntilSettled(world, before + 2 * count, 120_000);
    console.log(
      `provider quota exceeded 4×: calls refused by method ${JSON.stringify(world.proxy!.quotaRefusalsByMethod())}`,
    );
    expect(world.proxy!.quotaRefusals()).toBeGreaterThan(0);
    world.proxy!.enforceQuota(undefined);
    await expectInvariants({ world, deposits, proxy: world.proxy });
  });
});
